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

	// The rounding, on exact durations: a call with 2.5 ms left sends 3,
	// with 300 µs 1, not "no timeout". (The calls below used such short
	// deadlines: on a loaded machine 300 µs passed before the call was
	// sent, and it was refused as past its deadline.)
	for _, c := range []struct {
		left time.Duration
		want int64
	}{{2500 * time.Microsecond, 3}, {300 * time.Microsecond, 1}, {time.Nanosecond, 1}, {time.Millisecond, 1}, {time.Millisecond + 1, 2}, {10 * time.Second, 10000}} {
		if got := timeoutMS(c.left); got != c.want {
			t.Errorf("timeoutMS(%v) = %d, want %d", c.left, got, c.want)
		}
	}
	// A call sends what is left when it is sent: between what was left
	// when it returned and the whole 10 s.
	deadline := time.Now().Add(10 * time.Second)
	_, _ = p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: "left", Params: map[string]any{}, Deadline: deadline}, nil)
	leftAfter := time.Until(deadline)
	mu.Lock()
	n := len(got)
	var sent any
	if n == 1 {
		sent = got[0]["timeout_ms"]
	}
	mu.Unlock()
	if n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	if ms, ok := sent.(float64); !ok || ms > 10000 || ms < float64(leftAfter/time.Millisecond) {
		t.Errorf("sent timeout_ms %v, want %d..10000 (what is left of its deadline, rounded up)", sent, leftAfter/time.Millisecond)
	}
	// A deadline already past: Timeout, nothing sent.
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "left", Params: map[string]any{}, Deadline: time.Now().Add(-time.Millisecond)}, nil)
	if abi.CodeOf(err) != abi.Timeout {
		t.Errorf("call past its deadline: want Timeout, got %v", err)
	}
	mu.Lock()
	n = len(got)
	mu.Unlock()
	if n != 1 {
		t.Errorf("a call past its deadline was sent to the remote host (%d requests)", n)
	}
}
