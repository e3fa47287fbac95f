package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestHTTPCallAcceptedWithoutAnswerKeepsSession: a URL server that
// answered a tools/call with 202 Accepted (or 204) and no body — as MCP
// answers a notification, not a request — ended the whole session in
// the go-sdk ("unsupported content type \"\""): every call in flight
// failed with it and the bridge reconnected. Now that call alone fails,
// ProviderError saying the server answered it with that status and no
// JSON-RPC answer, and the session goes on.
func TestHTTPCallAcceptedWithoutAnswerKeepsSession(t *testing.T) {
	var inits atomic.Int32
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
		w.Header().Set("Mcp-Session-Id", "s1")
		msg := map[string]any{"jsonrpc": "2.0", "id": m.ID}
		switch m.Method {
		case "initialize":
			inits.Add(1)
			msg["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "h", "version": "1"}}
		case "tools/list":
			msg["result"] = map[string]any{"tools": []any{
				map[string]any{"name": "accepted", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "nocontent", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "ok", "inputSchema": obj(`{"type":"object"}`)},
			}}
		case "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "accepted":
				w.WriteHeader(http.StatusAccepted)
				return
			case "nocontent":
				w.WriteHeader(http.StatusNoContent)
				return
			}
			msg["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "fine"}}}
		default:
			msg["error"] = map[string]any{"code": -32601, "message": "no " + m.Method}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.h")
	for tool, status := range map[string]string{"accepted": "202 Accepted", "nocontent": "204 No Content"} {
		_, err := call(t, p, "mcp-h-"+tool, nil, 10*time.Second)
		t.Logf("%s: %v", tool, err)
		if abi.CodeOf(err) != abi.ProviderError {
			t.Errorf("%s: want ProviderError, got %v", tool, err)
		}
		if msg := abi.AsToolError(err, "").Message; !strings.Contains(msg, "mcp-h-"+tool) || !strings.Contains(msg, status) || !strings.Contains(msg, "no body") {
			t.Errorf("%s: %q does not say the server answered %s with no body", tool, msg, status)
		}
		v, err := call(t, p, "mcp-h-ok", nil, 10*time.Second)
		if err != nil || !strings.Contains(formatValue(v), "fine") {
			t.Errorf("the call after %s: %s %v", tool, formatValue(v), err)
		}
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
	}
}
