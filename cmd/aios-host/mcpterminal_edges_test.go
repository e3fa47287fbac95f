package main

import (
	"io"
	"strings"
	"testing"
)

// TestMCPOnTerminalSaysWhatItWaitsFor: `aios-host mcp` typed in a
// terminal, as a newcomer tries each command of the README, printed
// nothing at the default log level and waited: it serves one MCP client
// on standard input, which a terminal is not. On a terminal it says so
// and how to end it; a client's pipe gets no such line.
func TestMCPOnTerminalSaysWhatItWaitsFor(t *testing.T) {
	e := newEnv(t)
	old := stdinIsTerminal
	t.Cleanup(func() { stdinIsTerminal = old })
	const hint = "waiting for an MCP client's JSON-RPC on standard input"
	stdinIsTerminal = func(io.Reader) bool { return true }
	if code, out, errs := e.run("", "mcp"); code != exitOK || out != "" || !strings.Contains(errs, hint) || !strings.Contains(errs, "Ctrl-D") {
		t.Errorf("mcp on a terminal: exit %d, stdout %q, stderr %q; want %q", code, out, errs, hint)
	}
	stdinIsTerminal = old
	if code, _, errs := e.run("", "mcp"); code != exitOK || strings.Contains(errs, hint) {
		t.Errorf("mcp on a pipe: exit %d, stderr %q; want no %q", code, errs, hint)
	}
}
