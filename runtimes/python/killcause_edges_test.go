//go:build unix

package python_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestKillCauseNotGuessed: a worker ended by SIGKILL mid-call was "killed:
// the memory or CPU limit may have been reached" whatever killed it, a
// kill -9 from outside the host as much as its control group's OOM killer
// (found by p131: an operator's kill read as a memory problem). Where the
// worker has a control group, the host reads the group's OOM kills before
// removing it: an OOM kill names the memory limit, a SIGKILL without one
// says neither limit was reached.
func TestKillCauseNotGuessed(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1; c.MemoryMB = 128 })
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rt.Layers().Cgroup == "" {
		t.Skip("no control groups here: the host cannot tell an OOM kill from another SIGKILL")
	}
	h := newHost(t, rt)
	p := loadTool(t, h, "killed.py", `import os, time
from aios_sdk import tool

@tool
def sleeps(params):
    time.sleep(60)
    return {}

@tool
def memfd(params):
    # Pages of a memfd are outside RLIMIT_AS: only the control group's
    # memory limit stops them.
    fd = os.memfd_create("fill")
    chunk = b"x" * (4 << 20)
    while True:
        os.write(fd, chunk)

@tool
def ok(params):
    return {"ok": True}
`)
	stillServes(t, h, "loading")
	pids := p.(*python.Provider).WorkerPIDs()
	done := make(chan error, 1)
	go func() {
		_, err := call(h, "sleeps", map[string]any{}, 50*time.Second)
		done <- err
	}()
	time.Sleep(time.Second) // the call is under way: its worker sleeps
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-done
	wantCode(t, err, abi.ProviderCrashed, "tool sleeps", "signal: killed", "neither its memory limit nor its CPU limit was reached")
	if strings.Contains(err.Error(), "may have been reached") {
		t.Fatalf("a kill from outside blamed on the limits: %v", err)
	}

	_, err = call(h, "memfd", map[string]any{}, 50*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "tool memfd", "signal: killed", "out of memory: its tree reached runtimes.python.memory_mb (128 MiB)")
	stillServes(t, h, "the kills")
}
