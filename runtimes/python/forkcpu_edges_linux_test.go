//go:build linux

package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// forkChain returns at once, leaving a chain of processes behind: each
// burns half a second of CPU, forks the next and exits, so that none of
// them reaches its own RLIMIT_CPU, which is per process.
const forkChain = `import os, time
from aios_sdk import tool

TOKEN = os.urandom(8).hex()

@tool
def chain(params):
    if os.fork() == 0:
        while True:
            t = time.process_time()
            while time.process_time() - t < 0.5:
                pass
            if os.fork() != 0:
                os._exit(0)
    return {"token": TOKEN}

@tool
def token(params):
    return {"token": TOKEN}
`

// TestForkChainCPUBounded: cpu_seconds was RLIMIT_CPU, which counts one
// process, and the host read the worker's own CPU alone to replace a worn
// worker: a tool that left a chain of forked processes behind (each
// burning less than the limit, then forking the next) burnt CPU without
// end while its worker stayed idle, never replaced. The host now counts
// the CPU of the worker's whole control group, dead processes included,
// and ends the worker (and its tree) when it reaches cpu_seconds, also
// between calls.
func TestForkChainCPUBounded(t *testing.T) {
	if python.WorkerCgroups() < 0 {
		t.Skip("no control groups here")
	}
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1; c.CPUSeconds = 2 }))
	loadTool(t, h, "chain.py", forkChain)
	got, err := call(h, "chain", map[string]any{}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	first := got.(map[string]any)["token"]
	// The chain uses its 2 s of CPU (at most one core, cpus) within
	// seconds on an idle machine; a loaded one is given minutes. Its
	// worker's control group goes with the worker.
	n0 := python.WorkerCgroups()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline) && python.WorkerCgroups() >= n0; {
		time.Sleep(200 * time.Millisecond)
	}
	got, err = h.Call(context.Background(), &abi.ToolCall{Caller: "tester", Tool: "token", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if got.(map[string]any)["token"] == first {
		t.Errorf("a chain of forked processes went on burning CPU past cpu_seconds (2 s) for minutes, and its worker still serves")
	}
}
