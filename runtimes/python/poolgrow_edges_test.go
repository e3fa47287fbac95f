package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A call that found every worker busy and room in the pool started a
// worker for itself and waited for that worker's whole import, though a
// busy worker was free long before: with an import slower than the call's
// deadline (a tool file loading a large library or model) the call failed
// Timeout "starting a python worker: …", and as the start was cut short
// with it the pool never grew, so every call that came while one ran
// failed so. The worker is started for the pool: the call takes whichever
// worker is free first, and the new one joins the pool when it has started.
func TestCallTakesWorkerFreedWhilePoolGrows(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 2; c.StartupTimeout = 60 * time.Second })
	h := newHost(t, rt)
	p := loadTool(t, h, "slowimport.py", `import time
from aios_sdk import tool

time.sleep(4)  # every worker's import is slow

@tool
def nap(params):
    time.sleep(params["s"])
    return {"ok": True}
`)
	ps, _ := host.PoolStatsOf(p)
	first := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{"s": 0.2}, 30*time.Second); first <- err }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, b := ps.PoolStats(); b == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first call never took the worker")
		}
	}
	// The first worker is free after 0.2 s, the second starts in 4 s.
	if _, err := call(h, "nap", map[string]any{"s": 0}, 3*time.Second); err != nil {
		t.Fatalf("a call whose deadline is shorter than a worker's import, the pool's worker free within it: %v", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if idle, _ := ps.PoolStats(); idle == 2 {
			break
		}
		if time.Now().After(deadline) {
			idle, busy := ps.PoolStats()
			t.Fatalf("the pool did not grow to its second worker: idle %d busy %d", idle, busy)
		}
	}
}
