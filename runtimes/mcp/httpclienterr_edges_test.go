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

// TestHTTPRefusedRequestKeepsSession: a URL server (or a proxy before
// it) that refused one tools/call with a status and no JSON-RPC answer —
// 413 for arguments past a body limit, 400 from a validating gateway, a
// CDN's 520 — ended the whole session in the go-sdk (only 429, 500, 502,
// 503 and 504 leave it up): every call in flight on it failed with that
// one's "Request Entity Too Large", and the bridge reconnected, so an
// agent repeating a large call churned sessions. Now such an answer is
// that call's ProviderError naming the status and quoting the body, and
// the session goes on.
func TestHTTPRefusedRequestKeepsSession(t *testing.T) {
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
				map[string]any{"name": "big", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "bad", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "cdn", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "ok", "inputSchema": obj(`{"type":"object"}`)},
			}}
		case "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "big":
				http.Error(w, "<html>413 Request Entity Too Large</html>", http.StatusRequestEntityTooLarge)
				return
			case "bad":
				http.Error(w, "invalid request body", http.StatusBadRequest)
				return
			case "cdn":
				http.Error(w, "web server returned an unknown error", 520)
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
	for tool, want := range map[string][]string{"big": {"413", "Request Entity Too Large"}, "bad": {"400", "invalid request body"}, "cdn": {"520"}} {
		_, err := call(t, p, "mcp-h-"+tool, nil, 10*time.Second)
		t.Logf("%s: %v", tool, err)
		if abi.CodeOf(err) != abi.ProviderError {
			t.Errorf("%s: want ProviderError, got %v", tool, err)
		}
		msg := abi.AsToolError(err, "").Message
		for _, w := range append(want, "mcp-h-"+tool) {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", tool, msg, w)
			}
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
