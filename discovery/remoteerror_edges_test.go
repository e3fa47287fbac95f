package discovery

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A remote host's refusal of a call reached the caller as the remote
// wrote it: `CapabilityDenied: caller "peer" lacks CallTool(c-add)` told
// an agent of this host, which is not "peer", nothing of which host
// refused it, nor that "peer" is the agent of the token this host sends
// there. The remote's error keeps its code and data, and its message is
// preceded by the remote adapter and its endpoint now.
func TestRemoteErrorNamesRemote(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"caller \"peer\" lacks CallTool(c-add)","data":{"code":"CapabilityDenied","details":{"need":"CallTool(c-add)"}}}}`)
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.refuser", "name": "Refuser", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "c-add", "name": "Add", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "c-add", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	te := abi.AsToolError(err, abi.Internal)
	if err == nil || te.Code != abi.CapabilityDenied || !strings.Contains(te.Message, "org.test.refuser") || !strings.Contains(te.Message, `caller "peer" lacks CallTool(c-add)`) {
		t.Fatalf("a remote's refusal: %v; want CapabilityDenied naming the remote org.test.refuser and giving its message", err)
	}
	if d, _ := te.Data.(map[string]any); d == nil || d["need"] != "CallTool(c-add)" {
		t.Fatalf("a remote's refusal: data %#v; want the remote's details kept", te.Data)
	}
}
