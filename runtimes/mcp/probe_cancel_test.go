package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeClosedProviderSaysStopped: a call that reaches an MCP tool
// after its provider was closed (the host removed or replaced it while
// the call was being dispatched) says the server was stopped, not that the
// bridge is reconnecting (it never will: Close stopped it).
func TestProbeClosedProviderSaysStopped(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	if _, err := call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second)
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("after Close: want Unavailable, got %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "reconnecting") || !strings.Contains(msg, "stopped") {
		t.Errorf("after Close: %q; want it to say the server was stopped, not that the bridge is reconnecting", msg)
	}
}
