package discovery

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A remote's tools/call result without a "value" member — `null`, `{}`,
// an MCP-shaped {"content": [...]} from an endpoint that is no aios host —
// was taken as the tool returning null: the call succeeded with nothing,
// whatever the remote meant. It is InvalidResult now, naming the remote
// and the tool; a result whose value is null still returns null.
func TestRemoteResultWithoutValueRefused(t *testing.T) {
	var answer atomicString
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+answer.get()+`}`)
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.novalue", "name": "NoValue", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "n-get", "name": "Get", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	call := func() (any, error) {
		return p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "n-get", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	}
	for _, result := range []string{`null`, `{}`, `{"content":[{"type":"text","text":"42"}]}`} {
		answer.set(result)
		v, err := call()
		te := abi.AsToolError(err, abi.Internal)
		if err == nil || te.Code != abi.InvalidResult || !strings.Contains(te.Message, "org.test.novalue") || !strings.Contains(te.Message, "n-get") {
			t.Fatalf("result %s: %v, %v; want InvalidResult naming the remote org.test.novalue and the tool n-get", result, v, err)
		}
	}
	answer.set(`{"value":null}`)
	if v, err := call(); err != nil || v != nil {
		t.Fatalf(`result {"value":null}: %v, %v; want null`, v, err)
	}
	answer.set(`{"value":{"n":1}}`)
	if v, err := call(); err != nil || v.(map[string]any)["n"] != int64(1) {
		t.Fatalf(`result {"value":{"n":1}}: %#v, %v; want {"n":1}`, v, err)
	}
}

type atomicString struct{ v atomic.Pointer[string] }

func (a *atomicString) set(s string) { a.v.Store(&s) }
func (a *atomicString) get() string  { return *a.v.Load() }
