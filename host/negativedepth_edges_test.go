package host

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestNegativeDepthRefused: Host.Call with a negative depth passed the
// limits.max_call_depth check and gave every nested call under it as
// many more levels: depth -50 under a limit of 3 ran a tool that calls
// itself 54 calls deep. It is refused, naming the depth, before the
// provider runs.
func TestNegativeDepthRefused(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.MaxCallDepth = 3 })
	var calls atomic.Int64
	te.h.OnCall(func(CallStats) { calls.Add(1) })
	_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "recurse", Params: map[string]any{}, Depth: -50})
	if abi.CodeOf(err) != abi.InvalidRequest || !strings.Contains(err.Error(), "depth -50") {
		t.Errorf("recurse at depth -50: %v, want InvalidRequest naming the depth", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("recurse at depth -50 made %d calls, want the one refused", n)
	}
	// Depth 0 still nests up to the limit.
	calls.Store(0)
	if _, err := te.call("alice", "recurse", map[string]any{}); abi.CodeOf(err) != abi.DepthExceeded {
		t.Errorf("recurse at depth 0: %v, want DepthExceeded", err)
	}
	if n := calls.Load(); n != 5 {
		t.Errorf("recurse at depth 0 made %d calls, want 5 (depths 0 to 3, and 4 refused)", n)
	}
}
