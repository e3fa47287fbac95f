package mcp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestServerDyingDuringRestartListNoticedFirst is
// TestServerDyingDuringRestartListWaitedFor with the run loop noticing
// the dead session before the call that killed it drops it (as it did at
// times on a loaded machine): the restart counted as a failed first
// connection, and the next call answered Unavailable at once instead of
// waiting for the restart. A session a call was sent on is a restart
// whichever side notices first.
func TestServerDyingDuringRestartListNoticedFirst(t *testing.T) {
	sc := p150Config(t)
	sc.Env["AIOS_MCP_P150_SLOWLIST"] = filepath.Join(t.TempDir(), "started")
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatal(err)
	}
	// The call that found the connection closed waits until the run
	// loop has recorded the session's end.
	testHookBeforeDrop = func(s *server) {
		timeout := time.After(30 * time.Second)
		for {
			s.mu.Lock()
			if s.sess == nil {
				s.mu.Unlock()
				return
			}
			if s.changed == nil {
				s.changed = make(chan struct{})
			}
			ch := s.changed
			s.mu.Unlock()
			select {
			case <-ch:
			case <-timeout:
				return
			}
		}
	}
	t.Cleanup(func() { testHookBeforeDrop = nil })
	p := rec.provider("org.aios.mcp.p")
	if _, err := call(t, p, "mcp-p-die", nil, 60*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die: %v", err)
	}
	if _, err := call(t, p, "mcp-p-die", nil, 60*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("die during the restart's listing: %v", err)
	}
	res, err := call(t, p, "mcp-p-echo", nil, 60*time.Second)
	if err != nil || !strings.Contains(fmt.Sprint(res), "echo") {
		t.Fatalf("a call after the server died during its restart's listing: %v, %v; want it to wait for the next restart", res, err)
	}
}
