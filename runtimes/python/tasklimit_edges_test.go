package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool that starts more processes or threads than the worker's control
// group allows (runtimes.python.max_processes) failed "BlockingIOError:
// [Errno 11] Resource temporarily unavailable" (os.fork, subprocess) or
// "RuntimeError: can't start new thread", nothing saying that a limit of
// the sandbox was reached nor which, where a MemoryError says the worker's
// memory limit. Now the message names the limit and its setting.
func TestTaskLimitErrorsNameTheLimit(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.MaxProcesses = 16 })
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Disabled || l.Cgroup == "" {
		t.Skipf("no control groups on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "bombs.py", `import os, threading, time
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def forks(params):
    for i in range(100):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)

@tool
def threads(params):
    ev = threading.Event()
    for i in range(100):
        threading.Thread(target=ev.wait, daemon=True).start()
`)
	const note = "the worker's processes and threads together may number at most 16 (runtimes.python.max_processes"
	_, err := call(h, "forks", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "BlockingIOError", "(at bombs.py:11)", note)
	_, err = call(h, "threads", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "can't start new thread", "(at bombs.py:19)", note)
	stillServes(t, h, "the task limit reached")
}
