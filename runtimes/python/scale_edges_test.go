package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestCancelledWhileWorkerStarts: a call that has to start a worker
// (the pool has room, every running worker is busy) and whose caller goes
// away meanwhile (a socket client that hangs up) was answered, audited and
// counted as Unavailable ("starting a python worker: … the python
// worker's start was cancelled"), as if the host could not serve the tool:
// 509 of 20 300 calls of clients that vanished mid-call in a probe. It is
// Cancelled now, and a deadline that passes while the worker starts is
// Timeout.
func TestCancelledWhileWorkerStarts(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 3 })
	h := newHost(t, rt)
	p := loadTool(t, h, "slowstart.py", `from aios_sdk import tool
import time

time.sleep(0.4)  # every worker's start is slow

@tool(name="nap", parameters={"type": "object"})
def nap(params, ctx):
    time.sleep(2)
    return 1
`)
	ps, _ := host.PoolStatsOf(p)
	busy := make(chan error, 1)
	go func() { _, err := call(h, "nap", map[string]any{}, 10*time.Second); busy <- err }()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if _, b := ps.PoolStats(); b == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first call never took the worker")
		}
		time.Sleep(5 * time.Millisecond)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: "nap", Params: map[string]any{}})
	wantCode(t, err, abi.Cancelled)

	_, err = call(h, "nap", map[string]any{}, 50*time.Millisecond)
	wantCode(t, err, abi.Timeout)

	if err := <-busy; err != nil {
		t.Fatalf("the call on the first worker: %v", err)
	}
}
