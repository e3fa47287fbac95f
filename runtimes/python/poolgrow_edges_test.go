package python_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
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

// A worker started for the pool after the call that asked for it took
// another (TestCallTakesWorkerFreedWhilePoolGrows) serves no call while it
// imports: PoolStats (the aios_provider_pool metric) counts it neither idle
// nor busy, as a replacement being started.
func TestPoolStatsStartingWorkerNotBusy(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 2; c.StartupTimeout = 60 * time.Second })
	h := newHost(t, rt)
	// Workers started from 3 s after the load import for 30 s.
	after := time.Now().Add(3 * time.Second)
	p := loadTool(t, h, "slowimport.py", fmt.Sprintf(`import time
from aios_sdk import tool

if time.time() > %f:
    time.sleep(30)

@tool
def nap(params):
    time.sleep(params["s"])
    return {"ok": True}
`, float64(after.UnixNano())/1e9))
	ps, _ := host.PoolStatsOf(p)
	time.Sleep(time.Until(after) + 200*time.Millisecond)
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
	if _, err := call(h, "nap", map[string]any{"s": 0}, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// No call runs; the second worker imports for 30 s.
	if idle, busy := ps.PoolStats(); idle != 1 || busy != 0 {
		t.Errorf("no call runs, a worker imports for the pool: idle %d busy %d, want 1 and 0", idle, busy)
	}
}

// A call that waited for a worker while the pool's last one was still
// importing (a slow tool file) failed "waiting for a free python worker
// (all 2 of … busy; runtimes.python.pool_size)", as if every worker served
// a call and a larger pool would help. It says how many are still starting.
func TestPoolWaitSaysStarting(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 2; c.StartupTimeout = 60 * time.Second })
	h := newHost(t, rt)
	// Workers started from 3 s after the load import for 30 s.
	after := time.Now().Add(3 * time.Second)
	p := loadTool(t, h, "slowimport.py", fmt.Sprintf(`import time
from aios_sdk import tool

if time.time() > %f:
    time.sleep(30)

@tool
def nap(params):
    time.sleep(params["s"])
    return {"ok": True}
`, float64(after.UnixNano())/1e9))
	ps, _ := host.PoolStatsOf(p)
	time.Sleep(time.Until(after) + 200*time.Millisecond)
	first := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{"s": 30}, 60*time.Second); first <- err }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, b := ps.PoolStats(); b == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first call never took the worker")
		}
	}
	second := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{"s": 0}, 2*time.Second); second <- err }() // starts the second worker
	time.Sleep(500 * time.Millisecond)
	_, err := call(h, "nap", map[string]any{"s": 0}, time.Second)
	wantCode(t, err, abi.Timeout, "waiting for a free python worker", "1 of them still starting, importing slowimport.py")
	<-second
	_ = p.Close()
	<-first
}
