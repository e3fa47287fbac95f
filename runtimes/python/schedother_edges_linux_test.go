//go:build linux

package python_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/caps"
	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/runtimes/python"
)

// scheduler changes the scheduling of a process by pid, and its own.
const scheduler = `import os
from aios_sdk import tool

def attempt(fn):
    try:
        fn()
        return "done"
    except OSError as e:
        return "%s: %s" % (type(e).__name__, e)

@tool(name="sched", parameters={"pid": {"type": "integer"}})
def sched(params):
    pid = params["pid"]
    out = {}
    out["own-nice"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, 5))
    out["own-affinity"] = attempt(lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
    out["nice"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
    out["affinity"] = attempt(lambda: os.sched_setaffinity(pid, {0}))
    out["idle"] = attempt(lambda: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0)))
    out["user"] = attempt(lambda: os.setpriority(os.PRIO_USER, 0, 19))
    return out
`

// TestNoSchedulingOfOtherProcesses: where workers get no PID namespace
// (a host that is not root), a worker sees the host's processes, and
// Landlock's scopes keep it from signalling them but not from changing
// their scheduling: a tool reniced a process of the host's user to 19,
// pinned it to one CPU and made it SCHED_IDLE (the host itself, its
// getppid()), starving it. The seccomp filter lets a worker without a PID
// namespace change only its own scheduling (pid 0).
func TestNoSchedulingOfOtherProcesses(t *testing.T) {
	// The victim holds no capabilities, as the host of a user that is
	// not root (commoncap refuses to renice a process holding ones the
	// worker lacks).
	victim := make(chan *os.Process, 1)
	landlock.GoLocked(func() {
		if err := caps.DropForExec(); err != nil {
			t.Error(err)
			victim <- nil
			return
		}
		p, err := os.StartProcess("/bin/sleep", []string{"sleep", "300"}, &os.ProcAttr{})
		if err != nil {
			t.Error(err)
		}
		victim <- p
	})
	vp := <-victim
	if vp == nil {
		t.FailNow()
	}
	defer func() { _ = vp.Kill(); _, _ = vp.Wait() }()
	before, err := unix.Getpriority(unix.PRIO_PROCESS, vp.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(vp.Pid, &cpus); err != nil {
		t.Fatal(err)
	}

	rt := newRuntime(t, nil)
	python.NoPIDNamespace(rt)
	path := writeTool(t, "sched.py", scheduler)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l := rt.Layers(); !l.Seccomp {
		t.Skipf("seccomp unavailable: %s", l.SeccompErr)
	}
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "sched", Params: map[string]any{"pid": int64(vp.Pid)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	for _, k := range []string{"nice", "affinity", "idle", "user"} {
		if s, _ := r[k].(string); !strings.HasPrefix(s, "PermissionError") {
			t.Errorf("%s of process %d (not the worker's): %v, want PermissionError", k, vp.Pid, r[k])
		}
	}
	for _, k := range []string{"own-nice", "own-affinity"} {
		if r[k] != "done" {
			t.Errorf("%s: %v, want done (a worker may change its own scheduling)", k, r[k])
		}
	}
	after, err := unix.Getpriority(unix.PRIO_PROCESS, vp.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the tool changed process %d's nice value from %d to %d", vp.Pid, 20-before, 20-after)
	}
	var now unix.CPUSet
	if err := unix.SchedGetaffinity(vp.Pid, &now); err != nil {
		t.Fatal(err)
	}
	if now != cpus {
		t.Errorf("the tool changed process %d's CPUs from %d to %d", vp.Pid, cpus.Count(), now.Count())
	}
	pol, _, e := unix.Syscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(vp.Pid), 0, 0)
	if e != 0 {
		t.Fatal(e)
	}
	if pol != 0 { // SCHED_OTHER
		t.Errorf("the tool changed process %d's scheduling policy to %d", vp.Pid, pol)
	}
}
