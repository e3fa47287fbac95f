package python

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// laggingCtx is a context whose deadline has passed before its Err says
// so: the state of a context.WithDeadline between its deadline and the
// moment its timer runs, which a read of the worker's pipe given that
// deadline can see (under load, for milliseconds).
type laggingCtx struct {
	context.Context
	deadline time.Time
}

func (c laggingCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c laggingCtx) Done() <-chan struct{}       { return nil }
func (c laggingCtx) Err() error                  { return nil }

// A worker started for a call (a pool growing under load) whose start the
// call's deadline cut short was said not to have registered "within 10s"
// (runtimes.python.startup_timeout) and blamed on "a long-running import or
// a loop at module level", 500 ms into a call with a 500 ms deadline, when
// the pipe's read deadline (the call's) passed before the context's timer
// had run (found by p117: `call pysleep --timeout 500ms` eight times at
// once). The start is said to have been cut short by the deadline.
func TestWorkerStartCutByCallDeadlineSaysSo(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "slowstart.py")
	src := "import time\ntime.sleep(30)\nfrom aios_sdk import tool\n\n@tool(description='x')\ndef x(params, ctx):\n    return 1\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := New(DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	start := time.Now()
	ctx := laggingCtx{Context: context.Background(), deadline: start.Add(time.Second)}
	p, err := rt.Load(ctx, abi.Source{Path: file})
	if err == nil {
		_ = p.Close()
		t.Fatal("a worker that sleeps 30 s at import registered within a 1 s deadline")
	}
	if took := time.Since(start); took > 15*time.Second { // (a loaded machine took 4.8 s)
		t.Fatalf("the start ran %v past a 1 s deadline: %v", took, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "did not register within") || !strings.Contains(msg, "deadline") {
		t.Errorf("a start cut short by its call's deadline after 1 s is blamed on the 10 s startup timeout: %v", err)
	}
}
