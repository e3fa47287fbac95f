package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aios-host/aios-host/schema"
)

// TestUntypedInputSchemaTakesObjectsOnly: a tool whose inputSchema gives
// no "type" ({"properties": …}, or {}) was registered with that schema
// as it was, which any JSON value passes: a caller's "hello" or [1] was
// sent to the server as the call's arguments, which MCP makes an object
// (the server answered an error of its own, or ran the tool on it). MCP
// tools take an object: the imported schema says so, and the host
// refuses another value before the server sees it.
func TestUntypedInputSchemaTakesObjectsOnly(t *testing.T) {
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
				map[string]any{"name": "props", "inputSchema": obj(`{"properties":{"a":{"type":"string"}}}`)},
				map[string]any{"name": "empty", "inputSchema": obj(`{}`)},
			}}
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
	reg := rec.provider("org.aios.mcp.h").Describe()
	if len(reg.Tools) != 2 {
		t.Fatalf("imported %d tools, want 2", len(reg.Tools))
	}
	for _, def := range reg.Tools {
		v, err := schema.Compile(def.Name, def.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", def.Name, err)
		}
		for _, bad := range []any{"hello", []any{1.0}, 3.0} {
			if v.Validate(bad) == nil {
				t.Errorf("%s: its parameters %v take %#v, which MCP cannot send as a call's arguments", def.Name, def.Parameters, bad)
			}
		}
		if err := v.Validate(map[string]any{"a": "x"}); err != nil {
			t.Errorf("%s: an object refused: %v", def.Name, err)
		}
	}
}
