package js

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWorkerStderrClosed: every JS worker process the host started
// left the read end of its stderr pipe open after it ended (closed only
// if the worker's stderr outlived the process, else left to the garbage
// collector's finalizer): a probe reloading one unsigned JS file 30 times
// held 29 such pipes, and a host soaking 2000 plugin rewrites 42, until a
// collection, which GOGC=400 makes rare. The pipe is closed when the
// worker's stderr ends.
func TestWorkerStderrClosed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no finalizer closes them meanwhile
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	rt := newRuntime(t, Options{Isolation: IsolationProcess})
	path := writeSource(t, "churn.js", `aios.provider({ id: 'org.test.churn', name: 'churn' });
aios.registerTool({ name: 'echo', parameters: { type: 'object' } }, (p) => p);
`)
	cycle := func() {
		p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{}, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		pp := p.(*ProcessProvider)
		_ = pp.Close()
	}
	cycle() // the runtime's own files (bundler, …) opened once
	before := fds()
	const n = 10
	for range n {
		cycle()
	}
	deadline := time.Now().Add(5 * time.Second)
	after := fds()
	for after > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		after = fds()
	}
	if after > before+2 {
		t.Fatalf("after %d JS worker processes came and went: %d open fds, %d before", n, after, before)
	}
}
