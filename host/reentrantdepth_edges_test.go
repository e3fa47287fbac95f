package host

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestReentrantHostCallCountsDepth: a native handler holding the Host
// that calls Host.Call under its own call's context (an orchestrator tool
// running an agent's call for it) makes a nested call: it is counted
// against limits.max_call_depth and linked to the call that made it. It
// was a new top-level call of depth 0, so a tool calling itself that way
// recursed without end.
func TestReentrantHostCallCountsDepth(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.MaxCallDepth = 3 })
	var runs atomic.Int32
	p := native.New(abi.ProviderInfo{ID: "org.probe.reenter", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "reenter", Version: "1.0.0", Parameters: obj(map[string]any{})},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			if runs.Add(1) > 50 {
				return nil, abi.Errorf(abi.Internal, "recursed 50 deep")
			}
			return te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "reenter", Params: map[string]any{}})
		})
	addSystem(t, te, p)
	stats := make(chan CallStats, 16)
	defer te.h.OnCall(func(s CallStats) { stats <- s })()
	_, err := te.call("alice", "reenter", map[string]any{})
	if abi.CodeOf(err) != abi.DepthExceeded {
		t.Fatalf("reenter: %v after %d runs, want DepthExceeded", err, runs.Load())
	}
	if n := runs.Load(); n != 4 {
		t.Errorf("reenter ran %d times, want 4 (depths 0..3)", n)
	}
	if want := `agent "alice" → reenter → reenter → reenter → reenter → reenter; reenter calls itself`; !strings.Contains(err.Error(), want) {
		t.Errorf("reenter: %q does not name the chain %q", err, want)
	}
	// Each call's record names the one that made it; the refused one
	// is the innermost, and observers see the chain innermost first.
	ids := map[int]string{}
	parentOf := map[int]string{}
	for range 5 {
		s := <-stats
		ids[s.Depth], parentOf[s.Depth] = s.CallID, s.ParentID
	}
	for d := 1; d <= 4; d++ {
		if parentOf[d] == "" || parentOf[d] != ids[d-1] {
			t.Errorf("call at depth %d has parent %q, want %q (the call at depth %d)", d, parentOf[d], ids[d-1], d-1)
		}
	}
}
