package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestPoolStatsReplacementNotBusy: a worker being started in place of one
// that ended (a crash, a timeout's kill) serves no call, but PoolStats
// (the aios_provider_pool metric) counted it busy: after a worker crashed
// a few times in a row, its replacement waited out a backoff of seconds
// while /metrics showed a busy worker and no call ran (found by p117:
// busy 1, idle 0 after eight calls timed out and returned). It is neither
// idle nor busy until it has started.
func TestPoolStatsReplacementNotBusy(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	p := loadTool(t, h, "crash.py", `from aios_sdk import tool
import os

@tool(name="crash", parameters={"type": "object"})
def crash(params, ctx):
    os._exit(3)
`)
	ps, ok := host.PoolStatsOf(p)
	if !ok {
		t.Fatalf("%T does not implement host.PoolStats", p)
	}
	// Crashes in a row: the replacement of the last waits a backoff of
	// 800 ms before it starts.
	for i := range 6 {
		if _, err := call(h, "crash", map[string]any{}, 30*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
			t.Fatalf("crash %d: %v, want ProviderCrashed", i, err)
		}
	}
	if idle, busy := ps.PoolStats(); busy != 0 {
		t.Errorf("no call runs, the worker's replacement waits to start: idle %d busy %d, want busy 0", idle, busy)
	}
}
