package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteAnswerErrorNamesTool: an answer of a remote adapter that the
// host's JSON-RPC client refused (no result, a result that is not Unicode
// text, one over the size or decode limits) was reported as "remote
// adapter X at URL: the answer of URL …", naming no tool, though a remote
// serves many and a caller may run several at once (the other failures of
// a call say "calling <tool>"). Every error of a call names the tool now,
// the remote's own errors too.
func TestRemoteAnswerErrorNamesTool(t *testing.T) {
	answers := map[string]string{
		"t-noresult": `{"jsonrpc":"2.0","id":%s}`,
		"t-badtext":  `{"jsonrpc":"2.0","id":%s,"result":{"value":"\ud800"}}`,
		"t-refused":  `{"jsonrpc":"2.0","id":%s,"error":{"code":-32002,"message":"caller \"peer\" lacks a grant","data":{"code":"CapabilityDenied"}}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Replace(answers[req.Params.Name], "%s", string(req.ID), 1)))
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.named", "name": "N", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "t-noresult", "name": "A", "permission_level": "low"},
  {"id": "t-badtext", "name": "B", "permission_level": "low"}, {"id": "t-refused", "name": "C", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for tool := range answers {
		_, err := p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
		var te *abi.ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Message, "org.test.named") || !strings.Contains(te.Message, "calling "+tool+":") {
			t.Errorf("%s: %v; want an error naming the remote and the tool", tool, err)
		}
	}
}
