package python_test

import (
	"reflect"
	"testing"
	"time"
)

// TestForkedChildExitStatusKept: a child a tool forked (os.fork() without
// exec, as a hand-made process pool does) that ended with sys.exit(3), or
// with an exception its code did not catch, exited with status 0: the
// worker ends a forked child that leaves the tool's handler, and it did so
// with 0 whatever the child was leaving with, so the tool's waitpid saw
// success and the exception vanished (found by p131). The child exits as
// Python would have: with sys.exit's status, or 1 and the traceback on
// stderr.
func TestForkedChildExitStatusKept(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "forkexit.py", `import os, sys
from aios_sdk import tool

def child(how):
    if how == "exit3":
        sys.exit(3)
    if how == "raise":
        raise ValueError("the child's work failed")
    if how == "exitnone":
        sys.exit()

@tool
def forks(params):
    out = {}
    for how in ("exit3", "raise", "exitnone", "returns"):
        pid = os.fork()
        if pid == 0:
            child(how)
            return {"who": "child"}
        _, st = os.waitpid(pid, 0)
        out[how] = os.waitstatus_to_exitcode(st)
    return out

@tool
def ok(params):
    return {"ok": True}
`)
	got, err := call(h, "forks", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"exit3": int64(3), "raise": int64(1), "exitnone": int64(0), "returns": int64(0)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("forked children's exit statuses %#v, want %#v", got, want)
	}
	stillServes(t, h, "forked children exiting")
}
