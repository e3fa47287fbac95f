package host

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestCallThatCannotRunSpendsNoToken: a call whose caller has
// cancelled, or whose deadline has passed, before it starts is refused
// (Cancelled / Timeout) without taking a rate-limit token: it puts no load
// on any provider, and the caller's next call is not refused for it.
func TestCallThatCannotRunSpendsNoToken(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerCaller = &config.Rate{PerSecond: 0.001, Burst: 1}
		c.RateLimits.PerTool = map[string]config.Rate{"whoami": {PerSecond: 0.001, Burst: 1}}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "whoami"}); abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("a call cancelled before it started: want Cancelled, got %v", err)
	}
	if _, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "whoami", Deadline: time.Now().Add(-time.Second)}); abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("a call past its deadline: want Timeout, got %v", err)
	}
	if _, err := te.call("alice", "whoami", nil); err != nil {
		t.Fatalf("the first call that could run: %v (a call that never ran spent the token)", err)
	}
}
