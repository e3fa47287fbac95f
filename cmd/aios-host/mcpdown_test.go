package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPServerDownSaysSo: a call of a tool an imported MCP server would
// give, while that server is not connected (its command fails), said only
// `tool "mcp-mine-shout" not found`; the reason was in the log alone. The
// NotFound now says which server the tool would come from, that it is not
// connected, and how it comes back. A tool of no server is plain NotFound.
func TestMCPServerDownSaysSo(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	src := "mcp:\n  servers:\n    mine:\n      command: " + filepath.Join(t.TempDir(), "no-such-server") + "\n"
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, logs := e.run("", "call", "mcp-mine-shout", `{}`, "--config", cfg)
	errs := logs[strings.LastIndex(logs, "\nNotFound: ")+1:] // after the bridge's warnings
	if code != exitFail || !strings.HasPrefix(errs, "NotFound: ") ||
		!strings.Contains(errs, "it would come from MCP server mine (mcp.servers.mine), and it is not connected (the host log says why)") ||
		!strings.Contains(errs, "aios/registry.refresh") {
		t.Fatalf("call of a down server's tool: %d %q", code, errs)
	}
	if strings.Contains(errs, "no-such-server") {
		t.Errorf("the hint quotes the server's command line to the caller: %q", errs)
	}
	code, _, logs = e.run("", "call", "mcp-other-shout", `{}`, "--config", cfg)
	if code != exitFail || !strings.Contains(logs, `NotFound: tool "mcp-other-shout" not found`) || strings.Contains(logs, "it would come from MCP server") {
		t.Fatalf("a tool of no configured server: %d %q, want plain NotFound", code, logs)
	}
}
