package mcpserver

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestConfigErrorsNameLine: LoadConfig's checks of the mcp section
// (an unknown agent, an empty export pattern, a bad resource URL, …) named
// the file but not the line ("c.yaml: mcp.agent: …"), and the CLI, seeing
// the file's name first, added none.
func TestConfigErrorsNameLine(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"mcp:\n  agent: nobody\n", `c.yaml:2: mcp.agent: agent "nobody" is not defined under agents`},
		{"mcp:\n  export: [a, \"\"]\n", `c.yaml:2: mcp.export[1]: empty pattern`},
		{"mcp:\n  tools_list: some\n", `c.yaml:2: mcp.tools_list: "some": want callable or all`},
		{"mcp:\n  http:\n    max_sessions: -1\n", `c.yaml:3: mcp.http.max_sessions: -1`},
		{"mcp:\n  http:\n    scopes:\n      - {scope: a, agent: cli}\n      - {scope: b, agent: ghost}\n", `c.yaml:5: mcp.http.scopes[1].agent: agent "ghost"`},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := AddDefaultAgent(cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
}

// TestConfigNegativeDurationNamed: a negative mcp.http.session_timeout
// was refused as "mcp.http: clock_skew and session_timeout must not be
// negative", naming neither the key given nor its line.
func TestConfigNegativeDurationNamed(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"mcp:\n  http:\n    session_timeout: -1m\n", "c.yaml:3: mcp.http.session_timeout: -1m0s: must not be negative"},
		{"mcp:\n  http:\n    clock_skew: -1s\n", "c.yaml:3: mcp.http.clock_skew: -1s: must not be negative"},
		{"mcp:\n  stdin_drain: -2s\n", "c.yaml:2: mcp.stdin_drain: -2s: must not be negative"},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := AddDefaultAgent(cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
}
