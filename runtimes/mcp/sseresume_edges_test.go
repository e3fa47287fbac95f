package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCallStreamNotResumedKeepsSession: a URL server that answered a
// tools/call with an SSE stream whose events carry ids, and ended that
// stream before the answer, is asked to resume it (a GET with
// Last-Event-ID). One that refused (405: it serves no GET, as MCP lets
// a server) ended the whole session in the go-sdk: the call answered
// "sending \"tools/call\": Method Not Allowed", the next call, on the
// closed session, Unavailable, and the bridge reconnected. Now the call
// whose stream was not resumed fails alone, saying so, and the session
// goes on.
func TestCallStreamNotResumedKeepsSession(t *testing.T) {
	var inits, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			if r.Header.Get("Last-Event-ID") != "" {
				gets.Add(1)
			}
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
				map[string]any{"name": "cut", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "ok", "inputSchema": obj(`{"type":"object"}`)},
			}}
		case "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			if p.Name == "cut" {
				// A progress message, then the stream ends: no answer.
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				fmt.Fprintf(w, "id: ev-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n")
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
	_, err = call(t, p, "mcp-h-cut", nil, 10*time.Second)
	t.Logf("cut: %v", err)
	if abi.CodeOf(err) != abi.ProviderError {
		t.Errorf("want ProviderError, got %v", err)
	}
	if msg := abi.AsToolError(err, "").Message; !strings.Contains(msg, "mcp-h-cut") || !strings.Contains(msg, "ev-1") ||
		!strings.Contains(msg, "405") || !strings.Contains(msg, "before its answer") {
		t.Errorf("the error does not say the stream ended before the answer and was not resumed: %s", msg)
	}
	if gets.Load() == 0 {
		t.Error("the bridge never asked to resume the stream")
	}
	v, err := call(t, p, "mcp-h-ok", nil, 10*time.Second)
	if err != nil || !strings.Contains(formatValue(v), "fine") {
		t.Errorf("the call after: %s %v", formatValue(v), err)
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
	}
}
