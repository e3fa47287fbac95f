package main

import (
	"strings"
	"testing"
)

// TestConfigCheckMCPSection: the running host's look at its edited
// configuration file checked mcp.servers (the bridge) but not the rest of
// the mcp section, which run decodes itself: an edit with mcp.tools_list:
// some, an mcp.agent that is no agent, or an mcp.http.issuer without keys
// was logged as a change a restart applies, and the restart then failed.
// Each is now said at once, with the file, line and key, as run says it.
func TestConfigCheckMCPSection(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"mcp:\n  tools_list: some\n", `:2: mcp.tools_list: "some": want callable or all`},
		{"mcp:\n  agent: nobody\n", `:2: mcp.agent: agent "nobody" is not defined under agents`},
		{"mcp:\n  http:\n    issuer: https://auth.example.com\n", ":3: mcp.http.issuer: needs jwks_url or jwks_file"},
	} {
		cfg := writeConfig(t, tc.body)
		err := checkConfigFile(cfg)
		if err == nil {
			t.Errorf("%q passed the check that run fails", tc.body)
			continue
		}
		if !strings.HasPrefix(err.Error(), cfg+tc.want) {
			t.Errorf("%q: got %q, want it to start with %q", tc.body, err, cfg+tc.want)
		}
	}
	// The default mcp agent needs no agents entry.
	if err := checkConfigFile(writeConfig(t, "mcp:\n  tools_list: all\n")); err != nil {
		t.Errorf("mcp.tools_list: all: %v", err)
	}
}
