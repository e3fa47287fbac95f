package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A remote (or a proxy before it) that quotes the host's bearer token in
// its answer to a call — a 401 page "invalid token …", a JSON-RPC error
// echoing the request — had the token handed to the calling agent (the
// error of the call) and written into the audit record's error. It is now
// replaced, as the inference key and the MCP bridge's token are.
func TestRemoteTokenNotInErrors(t *testing.T) {
	const tok = "rem0te-t0ken-xyz"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Params.Name == "html" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, "<html>invalid token "+got+"</html>")
			return
		}
		res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32002,
			"message": "token " + got + " is not allowed", "data": map[string]any{"code": "CapabilityDenied", "details": map[string]any{"token": got}}}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(res)
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.tok", "name": "T", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "html", "name": "H", "permission_level": "low"}, {"id": "rpc", "name": "R", "permission_level": "low"}],
  "endpoints": {"http": "`+srv.URL+`"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tool := range []string{"html", "rpc"} {
		_, err := p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(5 * time.Second)}, nil)
		var te *abi.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a ToolError", tool, err)
		}
		if strings.Contains(fmt.Sprint(te.Message, te.Data), tok) {
			t.Errorf("%s: the host's token for the remote reaches the caller: %s %v", tool, te.Message, te.Data)
		}
		if !strings.Contains(te.Message, "[redacted: token of remote org.test.tok]") {
			t.Errorf("%s: %q does not say what was taken out", tool, te.Message)
		}
	}
}
