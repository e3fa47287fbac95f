package server

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// agents.NAME.methods chooses the JSON-RPC methods an agent may use: an
// agent limited to tools/* and aios/registry.search gets CapabilityDenied,
// naming the setting, for refresh and info (the registry methods had no
// authorization of their own: every agent that could connect could make
// the host rescan its plugin folders); initialize stays open, unknown
// methods are still MethodNotFound, and an agent without the setting may
// use every method.
func TestAgentMethods(t *testing.T) {
	ts := newTestServerAgents(t, "  lim: {grants: ['CallTool(*)'], methods: ['tools/*', aios/registry.search]}\n", "default_agent: lim\n", false)
	errCode := func(m map[string]any) (float64, string, string) {
		e, _ := m["error"].(map[string]any)
		if e == nil {
			return 0, "", ""
		}
		code, _ := e["code"].(float64)
		msg, _ := e["message"].(string)
		data, _ := e["data"].(map[string]any)
		dc, _ := data["code"].(string)
		return code, dc, msg
	}
	for _, method := range []string{"aios/registry.refresh", "aios/registry.info", "aios/registry.subscribe", "aios/registry.diff"} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`)
		_, dc, msg := errCode(m)
		if dc != "CapabilityDenied" || !strings.Contains(msg, `agent "lim" may not use `+method) || !strings.Contains(msg, "agents.lim.methods") {
			t.Errorf("%s: %v, want CapabilityDenied naming agents.lim.methods", method, m)
		}
	}
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"query":"echo"}}`,
	} {
		if m := rawExchange(t, ts, req); m["error"] != nil {
			t.Errorf("%s: %v", req, m["error"])
		}
	}
	if code, _, _ := errCode(rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.nope"}`)); code != -32601 {
		t.Errorf("an unknown method: code %v, want -32601 (method not found)", code)
	}

	// methods: [] leaves initialize (and unsubscribe) only.
	none := newTestServerAgents(t, "  none: {grants: ['CallTool(*)'], methods: []}\n", "default_agent: none\n", false)
	if _, dc, _ := errCode(rawExchange(t, none, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); dc != "CapabilityDenied" {
		t.Errorf("methods: [] allowed tools/list")
	}
	if m := rawExchange(t, none, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); m["error"] != nil {
		t.Errorf("methods: [] refused initialize: %v", m["error"])
	}

	// Without the setting (the default agent cli of the test config),
	// refresh is served.
	all := newTestServer(t, "", false)
	if _, dc, _ := errCode(rawExchange(t, all, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.refresh","params":{"scope":"local"}}`)); dc == "CapabilityDenied" {
		t.Errorf("an agent without methods was refused refresh")
	}

	// config.RPCMethods, which the setting is checked against, are the
	// methods the server dispatches.
	for _, method := range config.RPCMethods {
		if code, _, msg := errCode(rawExchange(t, all, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`)); code == -32601 {
			t.Errorf("config.RPCMethods has %s, which the server does not serve: %s", method, msg)
		}
	}
}
