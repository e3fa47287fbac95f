package mcp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestUnavailableNamesTheTool: a call of a server that is down (its
// restart failed) answered Unavailable "mcp server p (mcp.servers.p) is
// not connected; the bridge is reconnecting (the host log says why)", and
// one of a server whose provider was closed "mcp server p (mcp.servers.p)
// was stopped: …", neither naming the tool called, where every other
// failure of a bridged call names it (found by p150). Both name it now.
func TestUnavailableNamesTheTool(t *testing.T) {
	sc := p150Config(t)
	sc.Env["AIOS_MCP_P150_ONCE"] = filepath.Join(t.TempDir(), "started")
	sc.ReconnectMax = 30 * time.Second // it stays down meanwhile
	b, rec, _, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	if _, err := call(t, p, "mcp-p-die", nil, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err = call(t, p, "mcp-p-echo", nil, 5*time.Second)
		if abi.CodeOf(err) == abi.Unavailable || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("down: %v", err)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "mcp-p-echo") {
		t.Errorf("a call of a server that is down answered %v, want Unavailable naming the tool", err)
	}
	_ = b.Close()
	_, err = call(t, p, "mcp-p-echo", nil, 5*time.Second)
	t.Logf("stopped: %v", err)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "mcp-p-echo") {
		t.Errorf("a call of a stopped server answered %v, want Unavailable naming the tool", err)
	}
}
