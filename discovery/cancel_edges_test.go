package discovery

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteForwardsRemainingTime: a remote adapter's call carries
// what is left of the call's deadline as timeout_ms, rounded up, never
// nothing: with less than a millisecond left the remote host must not
// apply its own default deadline (30 s) to a call its caller gives up on
// at once; and a call whose deadline has passed is not sent at all.
func TestRemoteForwardsRemainingTime(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params map[string]any  `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		got = append(got, req.Params)
		mu.Unlock()
		res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"value": "ok"}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(res)
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.left", "name": "L", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "left", "name": "Left", "permission_level": "low"}],
  "endpoints": {"http": "`+srv.URL+`"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	// 2.5 ms left: 3 ms are sent (rounded up, so never 0).
	_, _ = p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: "left", Params: map[string]any{}, Deadline: time.Now().Add(2500 * time.Microsecond)}, nil)
	// 300 µs left: 1 ms, not "no timeout".
	_, _ = p.Call(context.Background(), &abi.ToolCall{ID: "b", Tool: "left", Params: map[string]any{}, Deadline: time.Now().Add(300 * time.Microsecond)}, nil)
	mu.Lock()
	n := len(got)
	var sent []any
	for _, g := range got {
		sent = append(sent, g["timeout_ms"])
	}
	mu.Unlock()
	if n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	for i, s := range sent {
		ms, ok := s.(float64)
		if !ok || ms < 1 || ms > 3 {
			t.Errorf("call %d sent timeout_ms %v, want 1..3 (what is left of its deadline, rounded up)", i, s)
		}
	}
	// A deadline already past: Timeout, nothing sent.
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "left", Params: map[string]any{}, Deadline: time.Now().Add(-time.Millisecond)}, nil)
	if abi.CodeOf(err) != abi.Timeout {
		t.Errorf("call past its deadline: want Timeout, got %v", err)
	}
	mu.Lock()
	n = len(got)
	mu.Unlock()
	if n != 2 {
		t.Errorf("a call past its deadline was sent to the remote host (%d requests)", n)
	}
}
