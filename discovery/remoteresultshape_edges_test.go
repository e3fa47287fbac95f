package discovery

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteResultNotObjectRefused: a tools/call result that is not an
// object (a string, a number, an array) was Unavailable — as if the
// remote could not be reached — with Go's "cannot unmarshal string into
// Go value of type struct { Value discovery.presentValue … }"; it is
// InvalidResult naming the remote, the tool and what the result was.
func TestRemoteResultNotObjectRefused(t *testing.T) {
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
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.shape", "name": "Shape", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "s-get", "name": "Get", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for result, kind := range map[string]string{`"str"`: "string", `42`: "number", `[1,2]`: "array", `true`: "boolean"} {
		answer.set(result)
		v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "s-get", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
		te := abi.AsToolError(err, abi.Internal)
		if err == nil || te.Code != abi.InvalidResult || !strings.Contains(te.Message, "org.test.shape") || !strings.Contains(te.Message, "s-get") ||
			!strings.Contains(te.Message, kind) || strings.Contains(te.Message, "Go value") {
			t.Fatalf("result %s: %v, %v; want InvalidResult naming the remote org.test.shape, the tool s-get and the %s it answered", result, v, err, kind)
		}
	}
}

// TestRemoteErrorWithoutMessageNamed: a remote's error without a message
// ({"code": -32000, "message": ""}) reached the caller without the
// "remote adapter … at …" its other errors carry; it names the remote,
// its endpoint and the tool, and says the remote gave no message.
func TestRemoteErrorWithoutMessageNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32000,"message":"  "}}`)
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.quiet", "name": "Quiet", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "q-get", "name": "Get", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "q-get", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	te := abi.AsToolError(err, abi.Internal)
	if err == nil || !strings.Contains(te.Message, "remote adapter org.test.quiet at "+srv.URL) || !strings.Contains(te.Message, "q-get") || !strings.Contains(te.Message, "no message") {
		t.Fatalf("an error without a message: %v; want it to name the remote, its endpoint, the tool, and say there was no message", err)
	}
}
