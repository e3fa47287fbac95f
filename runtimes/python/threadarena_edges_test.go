package python_test

import (
	"context"
	"testing"
	"time"
)

// Under the default memory_mb (512 MiB of address space, RLIMIT_AS) a tool
// could start about a dozen threads: glibc's malloc gives each thread that
// allocates an arena of its own, reserving 64 MiB of address space (up to
// eight per core), which the limit counts though almost none of it is ever
// used, so ThreadPoolExecutor(32) for I/O fan-out failed "can't start new
// thread". The workers run with MALLOC_ARENA_MAX=2: the threads share two
// arenas, and 32 threads fit with room to spare.
func TestThreadsNotBoundByMallocArenas(t *testing.T) {
	rt := newRuntime(t, nil) // the default memory_mb
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Disabled || !l.Rlimits {
		t.Skipf("no resource limits on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "fanout.py", `import threading
from concurrent.futures import ThreadPoolExecutor
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def fanout(params):
    n = params["n"]
    barrier = threading.Barrier(n)

    def work(i):
        data = [str(j) * 50 for j in range(2000)]  # each thread allocates
        barrier.wait(timeout=20)  # all n threads run at once
        return len(data)

    with ThreadPoolExecutor(max_workers=n) as ex:
        return {"done": sum(ex.map(work, range(n)))}
`)
	got, err := call(h, "fanout", map[string]any{"n": 32}, 60*time.Second)
	if err != nil {
		t.Fatalf("32 threads under the default memory_mb: %v", err)
	}
	if m, _ := got.(map[string]any); m["done"] != int64(32*2000) {
		t.Fatalf("fanout returned %#v", got)
	}
	stillServes(t, h, "32 threads")
}
