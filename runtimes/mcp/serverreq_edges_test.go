package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestServerRequestsAnswered: a server's ping during a call is
// answered {}, roots/list with no roots (the bridge declares none), and
// elicitation/create and sampling/createMessage (not offered: sampling
// off) with a JSON-RPC error; an answer sent twice is taken once, and the
// session goes on. No defect: a guard.
func TestServerRequestsAnswered(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p89Config(t, "plain", "p", "ask_ping", "ask_roots", "ask_elicit", "ask_sampling", "twice", "after")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	for _, tc := range []struct{ tool, want string }{
		{"ask_ping", `result {}`},
		{"ask_roots", `result {"roots":[]}`},
		{"ask_elicit", `error {"code":`},
		{"ask_sampling", `error {"code":`},
		{"twice", `"one"`},
		{"twice", `"one"`},
		{"after", `p: after`},
	} {
		v, err := call(t, p, "mcp-p-"+tc.tool, nil, 5*time.Second)
		got := formatValue(v)
		t.Logf("%s: %s %v", tc.tool, got, err)
		if err != nil || !strings.Contains(got, strings.ReplaceAll(tc.want, `"`, `\"`)) && !strings.Contains(got, tc.want) {
			t.Errorf("%s answered %s %v, want %s", tc.tool, got, err, tc.want)
		}
	}
}
