package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorWithOnlyStructuredContentSaysIt: a failed call (isError)
// whose server said why in structuredContent alone, with no text block
// ({"error": "quota exceeded", "retry_in": 30}), was the ProviderError
// "the tool reported an error without text": what the server said was
// dropped. The error carries that structuredContent's JSON (bounded as
// an error text is).
func TestErrorWithOnlyStructuredContentSaysIt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m fakeMsg
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted) // notifications
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s1")
		msg := map[string]any{"jsonrpc": "2.0", "id": m.ID}
		switch m.Method {
		case "initialize":
			msg["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "h", "version": "1"}}
		case "tools/list":
			msg["result"] = map[string]any{"tools": []any{
				map[string]any{"name": "plain", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "typed", "inputSchema": obj(`{"type":"object"}`), "outputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "big", "inputSchema": obj(`{"type":"object"}`)},
			}}
		case "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			sc := map[string]any{"error": "quota exceeded", "retry_in": 30}
			if p.Name == "big" {
				sc = map[string]any{"error": strings.Repeat("x", 100<<10)}
			}
			msg["result"] = map[string]any{"isError": true, "content": []any{}, "structuredContent": sc}
		default:
			msg["error"] = map[string]any{"code": -32601, "message": "no " + m.Method}
		}
		_ = json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.h")
	for _, tool := range []string{"mcp-h-plain", "mcp-h-typed"} {
		_, err := call(t, p, tool, nil, 10*time.Second)
		if abi.CodeOf(err) != abi.ProviderError {
			t.Fatalf("%s: want ProviderError, got %v", tool, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "quota exceeded") || !strings.Contains(msg, tool) {
			t.Errorf("%s: %q does not say what the server said", tool, msg)
		}
	}
	_, err = call(t, p, "mcp-h-big", nil, 10*time.Second)
	if msg := abi.AsToolError(err, "").Message; len(msg) > maxErrorText+512 || !strings.Contains(msg, "xxx") {
		t.Errorf("a 100 KiB structuredContent made an error of %d bytes (want it cut at %d): %.200s", len(msg), maxErrorText, msg)
	}
}
