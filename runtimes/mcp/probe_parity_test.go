package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeCrashErrorKeepsCommandLine: a stdio server that dies during a
// call is ProviderCrashed, as a crashed worker of any runtime; the error
// its caller sees named the server by its whole command line ("mcp
// server fake (/abs/path/to/server -test.run=^$) died during …"): the
// host's paths and the server's arguments — where tokens are often passed
// (--api-key …) — reached every caller, MCP clients and remote agents
// included, and the audit log. The JS and Python runtimes name a file by
// its base name only, and the bridge's own NotFound for a server that is
// down leaves the command line out on purpose (docs/mcp.md). It now names
// the server's config key; the command line stays in the host log.
func TestProbeCrashErrorKeepsCommandLine(t *testing.T) {
	cfg := fakeConfig(t, "good")
	cfg.Args = append(cfg.Args, "--api-key=s3cr3t-token")
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-die", map[string]any{}, 10*time.Second)
	if abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("err = %v, want ProviderCrashed", err)
	}
	msg := err.Error()
	for _, leak := range []string{cfg.Command, "s3cr3t-token"} {
		if strings.Contains(msg, leak) {
			t.Errorf("the caller's error quotes the server's command line (%q): %s", leak, msg)
		}
	}
	if !strings.Contains(msg, "mcp.servers.fake") {
		t.Errorf("the error does not name the server's config key mcp.servers.fake: %s", msg)
	}
}
