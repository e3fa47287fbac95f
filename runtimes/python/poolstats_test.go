package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestPoolStats: the aios_provider_pool metric's source (host.PoolStats)
// counts a Python provider's idle workers and those serving calls.
func TestPoolStats(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 2 })
	h := newHost(t, rt)
	p := loadTool(t, h, "nap.py", `from aios_sdk import tool
import time

@tool(name="nap", parameters={"type": "object"})
def nap(params, ctx):
    time.sleep(0.5)
    return 1
`)
	ps, ok := host.PoolStatsOf(p)
	if !ok {
		t.Fatalf("%T does not implement host.PoolStats", p)
	}
	if idle, busy := ps.PoolStats(); idle != 1 || busy != 0 {
		t.Fatalf("after load: idle %d busy %d, want 1 0", idle, busy)
	}
	done := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{}, 5*time.Second); done <- err }()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, busy := ps.PoolStats(); busy == 1 {
			break
		} else if time.Now().After(end) {
			t.Fatalf("during a call: busy %d, want 1", busy)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if idle, busy := ps.PoolStats(); idle != 1 || busy != 0 {
		t.Fatalf("after the call: idle %d busy %d, want 1 0", idle, busy)
	}
}
