package python_test

import (
	"context"
	"os"
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
	h, _, ps, first := slowPoolBusy(t, 0.2, 30*time.Second)
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
	h, p, _, first := slowPoolBusy(t, 30, 60*time.Second)
	second := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{"s": 0}, 2*time.Second); second <- err }() // starts the second worker
	time.Sleep(500 * time.Millisecond)
	_, err := call(h, "nap", map[string]any{"s": 0}, time.Second)
	wantCode(t, err, abi.Timeout, "waiting for a free python worker", "1 of them still starting, importing slowimport.py")
	<-second
	_ = p.Close()
	<-first
}

// slowPoolBusy loads a tool whose workers, once the first has started,
// import for 30 s (switched on by setting the file's time back after the
// load: a time window set before it was missed by a loaded machine's
// load), into a pool of 2, and has the first worker take a call of nap
// sleeping s seconds within deadline.
func slowPoolBusy(t *testing.T, s float64, deadline time.Duration) (*host.Host, abi.Provider, host.PoolStats, chan error) {
	t.Helper()
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 2; c.StartupTimeout = 60 * time.Second })
	h := newHost(t, rt)
	path := writeTool(t, "slowimport.py", `import os, time
from aios_sdk import tool

if os.stat(__file__).st_mtime < 1e6:
    time.sleep(30)

@tool
def nap(params):
    time.sleep(params["s"])
    return {"ok": True}
`)
	p, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Source: "slowimport.py", Trust: abi.System})
	if err != nil {
		t.Fatalf("loading slowimport.py: %v", err)
	}
	if err := os.Chtimes(path, time.Unix(1000, 0), time.Unix(1000, 0)); err != nil {
		t.Fatal(err)
	}
	ps, _ := host.PoolStatsOf(p)
	first := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{"s": s}, deadline); first <- err }()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, b := ps.PoolStats(); b == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the first call never took the worker")
		}
	}
	return h, p, ps, first
}
