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

// A call that reached the task limit left its threads behind (daemon
// threads waiting on an event the call dropped), holding the limit: every
// later call of that worker that started a thread failed "can't start new
// thread" until the worker was replaced for another reason. Now the worker
// is replaced after such a call.
func TestTaskLimitReachedWorkerReplaced(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.MaxProcesses = 16; c.PoolSize = 1 })
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Disabled || l.Cgroup == "" {
		t.Skipf("no control groups on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "leaks.py", `import threading
from aios_sdk import tool

@tool
def threads(params):
    ev = threading.Event()
    for i in range(100):
        threading.Thread(target=ev.wait, daemon=True).start()

@tool
def one(params):
    out = []
    th = threading.Thread(target=lambda: out.append(1))
    th.start()
    th.join()
    return {"ran": len(out)}
`)
	_, err := call(h, "threads", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "can't start new thread", "runtimes.python.max_processes")
	for i := 0; i < 3; i++ {
		got, err := call(h, "one", map[string]any{}, 30*time.Second)
		if err != nil {
			t.Fatalf("call %d after the task limit was reached: %v", i+1, err)
		}
		if m, _ := got.(map[string]any); m["ran"] != int64(1) {
			t.Fatalf("call %d: %#v", i+1, got)
		}
	}
}
