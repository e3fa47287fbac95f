package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A tool using multiprocessing (multiprocessing.Pool, a Queue, a Lock,
// concurrent.futures.ProcessPoolExecutor) failed "PermissionError: [Errno
// 13] Permission denied (at t.py:LINE)", naming no file and no reason: its
// locks are POSIX semaphores, files in /dev/shm, which the sandbox lets no
// tool create. The message now says so and what to use instead.
func TestMultiprocessingSaysSandbox(t *testing.T) {
	rt := newRuntime(t, nil)
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Disabled || l.Landlock == 0 {
		t.Skipf("no Landlock on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "mp.py", `import multiprocessing
from aios_sdk import tool

def square(x):
    return x * x

@tool
def ok(params):
    return {"ok": True}

@tool
def pool(params):
    with multiprocessing.Pool(2) as p:
        return p.map(square, [1, 2, 3])

@tool
def lock(params):
    multiprocessing.Lock()
`)
	const note = "multiprocessing's locks, queues and pools need POSIX semaphores in /dev/shm, which the sandbox lets no tool create"
	_, err := call(h, "pool", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "PermissionError", "(at mp.py:13)", note, "ThreadPoolExecutor")
	_, err = call(h, "lock", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "PermissionError", "(at mp.py:18)", note)
	stillServes(t, h, "multiprocessing refused")
}
