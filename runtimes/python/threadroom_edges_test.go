package python_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A tool starting threads under the default limits (memory_mb 512,
// max_processes 128) could start only a dozen or so: each thread reserves
// address space for its stack (8 MiB) and its malloc arena (up to 64 MiB),
// which RLIMIT_AS counts, and the error said "can't start new thread …; the
// worker's processes and threads together may number at most 128
// (runtimes.python.max_processes …)", blaming a limit nowhere near reached,
// so raising it changed nothing. Now, when no thread stack fits in the
// address space left, the message names the memory limit instead.
func TestThreadStartPastMemoryNamesMemoryLimit(t *testing.T) {
	rt := newRuntime(t, nil) // the default memory_mb and max_processes
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Disabled || !l.Rlimits {
		t.Skipf("no resource limits on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "threads.py", `import threading
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def threads(params):
    ev = threading.Event()
    try:
        for i in range(100):
            threading.Thread(target=ev.wait, daemon=True).start()
    finally:
        ev.set()
`)
	_, err := call(h, "threads", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "can't start new thread", "(at threads.py:13)",
		"the worker's memory limit (512 MiB, runtimes.python.memory_mb) has no room for another thread")
	if strings.Contains(err.Error(), "max_processes") {
		t.Errorf("the task limit was not reached, yet the message names it: %v", err)
	}
	stillServes(t, h, "threads past the memory limit")
}
