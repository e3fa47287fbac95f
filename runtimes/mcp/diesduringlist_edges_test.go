package mcp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestServerDyingDuringRestartListWaitedFor: a restarted server's session
// serves calls from its initialize on, while the bridge still lists its
// tools. A call that crashed it then (the server died before answering
// tools/list) made the restart count as a failed first connection: the
// bridge stopped saying it was restarting, and the calls that came next
// answered Unavailable ("is not connected … reconnecting") at once
// instead of waiting for the restart, as calls after any other crash do
// (TestDeadlineWhileAwaitingRestartIsTimeout failed so on a loaded
// machine). A session that served a call and dropped is a restart now.
func TestServerDyingDuringRestartListWaitedFor(t *testing.T) {
	sc := p150Config(t)
	sc.Env["AIOS_MCP_P150_SLOWLIST"] = filepath.Join(t.TempDir(), "started")
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	if _, err := call(t, p, "mcp-p-die", nil, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die: %v", err)
	}
	// The restart's session is up; its tools/list answers 2 s late. This
	// call is sent on it meanwhile and kills it.
	if _, err := call(t, p, "mcp-p-die", nil, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die during the restart's listing: %v", err)
	}
	res, err := call(t, p, "mcp-p-echo", nil, 10*time.Second)
	if err != nil || !strings.Contains(fmt.Sprint(res), "echo") {
		t.Fatalf("a call after the server died during its restart's listing: %v, %v; want it to wait for the next restart", res, err)
	}
}
