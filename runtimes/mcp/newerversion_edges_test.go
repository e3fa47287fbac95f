package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestServerPickingNewerVersionRefused: a server that answered the
// bridge's initialize (2025-11-25) with a newer version, 2026-07-28,
// had it taken: the go-sdk then runs the session under that draft's
// rules, among them caching tools/list answers for the ttlMs the server
// gives, so the re-listing after a call found a tool gone ("the bridge
// lists its tools again") read the cache, never asked the server, and
// the vanished tool stayed registered. MCP lets a server answer the
// version asked or another it supports, and the bridge, asking for
// 2025-11-25, runs no newer one: the connection fails, naming both.
func TestServerPickingNewerVersionRefused(t *testing.T) {
	var lists atomic.Int32
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
			msg["result"] = map[string]any{"protocolVersion": "2026-07-28", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "h", "version": "1"}}
		case "tools/list":
			lists.Add(1)
			msg["result"] = map[string]any{"tools": []any{map[string]any{"name": "gone", "inputSchema": obj(`{"type":"object"}`)}}, "ttlMs": 600000}
		default:
			msg["error"] = map[string]any{"code": -32602, "message": `unknown tool "gone"`}
		}
		_ = json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second, ReconnectMax: time.Second}})
	if err == nil {
		t.Fatalf("Start succeeded with a server that picked a newer protocol version; tools %v", rec.toolNames("org.aios.mcp.h"))
	}
	for _, want := range []string{"2026-07-28", ProtocolVersion, "protocol version"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if names := rec.toolNames("org.aios.mcp.h"); len(names) != 0 || lists.Load() != 0 {
		t.Errorf("tools %v imported (%d listings) from a session the bridge does not run", names, lists.Load())
	}
}
