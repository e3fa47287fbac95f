package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestDeadlineWhileAwaitingRestartIsTimeout: a call made while a crashed
// stdio server was being restarted waits for it (at most 5 s); when its
// deadline passed (or its caller cancelled it) during that wait it
// answered Unavailable "mcp server p (mcp.servers.p) is not connected; the
// bridge is reconnecting", naming neither the tool nor the deadline, where
// a call the server had not answered by its deadline is Timeout (found by
// p150). Now it is Timeout (Cancelled) naming the server and the tool and
// saying that the server was restarting.
func TestDeadlineWhileAwaitingRestartIsTimeout(t *testing.T) {
	sc := p150Config(t)
	sc.Env["AIOS_MCP_P150_SLOWRESTART"] = filepath.Join(t.TempDir(), "started")
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	if _, err := call(t, p, "mcp-p-die", nil, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die: %v", err)
	}
	start := time.Now()
	_, err = call(t, p, "mcp-p-echo", nil, time.Second)
	t.Logf("deadline: %v (after %v)", err, time.Since(start))
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "mcp-p-echo") || !strings.Contains(err.Error(), "mcp server p") ||
		!strings.Contains(err.Error(), "restart") {
		t.Errorf("a call whose deadline passed while the server restarted answered %v, want Timeout naming the server and the tool and the restart", err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("a call given 1 s answered after %v", d)
	}
	// Crash it again, and cancel a call waiting for the restart.
	if _, err := call(t, p, "mcp-p-die", nil, 20*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	_, err = p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "mcp-p-echo", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}, nil)
	t.Logf("cancel: %v", err)
	if abi.CodeOf(err) != abi.Cancelled || !strings.Contains(err.Error(), "mcp-p-echo") {
		t.Errorf("a call cancelled while the server restarted answered %v, want Cancelled naming the tool", err)
	}
}
