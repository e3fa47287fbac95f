package main

import (
	"strings"
	"testing"
)

// TestMCPHiddenToolsSaidByDefault: README says `aios-host mcp` logs at
// start which exported tools its agent may not call and what each lacks,
// so a newcomer whose assistant lists no tools learns why; the line was
// at Info, and mcp logs at warn unless --log-level says otherwise, so by
// default (as an MCP client starts it) it was never written. It is a
// warning now, naming the tool, the agent and the setting to change.
func TestMCPHiddenToolsSaidByDefault(t *testing.T) {
	e := newEnv(t)
	code, _, stderr := e.run("", "mcp")
	if code != exitOK {
		t.Fatalf("mcp exited %d: %s", code, stderr)
	}
	for _, want := range []string{"may not call", "analyze-complexity", "agents.mcp"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("mcp's log at its default level does not say %q: %q", want, stderr)
		}
	}
}
