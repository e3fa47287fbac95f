//go:build linux

package python_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const forker = `import os, time, signal
from aios_sdk import Agent, tool

@Agent(id="org.test.forker")
class Forker:
    @tool(name="fork-many", parameters={"n": {"type": "integer"}})
    def fork_many(self, params):
        kids, err = [], ""
        for _ in range(params["n"]):
            try:
                pid = os.fork()
            except OSError as e:
                err = "%s: %s" % (type(e).__name__, e)
                break
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            kids.append(pid)
        for pid in kids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        return {"forked": len(kids), "error": err}

    @tool(name="fork-orphan")
    def fork_orphan(self, params):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            time.sleep(600)
            os._exit(0)
        return {"pid": pid}

    @tool(name="tree-memory", parameters={"children": {"type": "integer"}, "mb": {"type": "integer"}})
    def tree_memory(self, params):
        kids = []
        for _ in range(params["children"]):
            pid = os.fork()
            if pid == 0:
                block = bytearray(b"\x01") * (params["mb"] << 20)  # every page written
                time.sleep(3)
                os._exit(0)
            kids.append(pid)
        out = []
        for pid in kids:
            _, st = os.waitpid(pid, 0)
            out.append(os.WTERMSIG(st) if os.WIFSIGNALED(st) else -os.WEXITSTATUS(st))
        return {"signals": out}
`

// cgroupRuntime is a runtime whose workers get control groups, or skips.
func cgroupRuntime(t *testing.T, pc func(*python.Config), noPIDNS bool) (*python.Runtime, abi.Provider) {
	t.Helper()
	rt := newRuntime(t, pc)
	if noPIDNS {
		python.NoPIDNamespace(rt)
	}
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "forker.py", forker)})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Layers().Cgroup == "" {
		p.Close()
		t.Skipf("no control groups on this machine: %s", rt.Layers().CgroupErr)
	}
	return rt, p
}

// TestCgroupTaskLimit: a tool's fork bomb stops at max_processes (tasks of
// the worker's whole tree), and its processes go with the worker, whose
// control group is then removed.
func TestCgroupTaskLimit(t *testing.T) {
	before := python.WorkerCgroups()
	_, p := cgroupRuntime(t, func(c *python.Config) { c.MaxProcesses = 16; c.PoolSize = 1 }, false)
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "fork-many", Params: map[string]any{"n": 200}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	forked, _ := r["forked"].(int64)
	if forked >= 16 || !strings.Contains(r["error"].(string), "BlockingIOError") && !strings.Contains(r["error"].(string), "Resource temporarily unavailable") {
		t.Fatalf("fork-many 200 under max_processes 16: %v, want fewer than 16 forks and EAGAIN", r)
	}
	// The worker still serves.
	if _, err := p.Call(context.Background(), &abi.ToolCall{ID: "c2", Tool: "fork-many", Params: map[string]any{"n": 2}}, nil); err != nil {
		t.Fatalf("after the fork bomb: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for python.WorkerCgroups() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := python.WorkerCgroups(); n > before {
		t.Fatalf("%d worker control groups left after Close, %d before Load", n, before)
	}
}

// TestCgroupKillsOrphans: without a PID namespace, a process a tool forks
// that left the worker's process group (setsid) still dies with the
// worker: its control group is emptied.
func TestCgroupKillsOrphans(t *testing.T) {
	_, p := cgroupRuntime(t, func(c *python.Config) { c.PoolSize = 1 }, true)
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "fork-orphan"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := int(v.(map[string]any)["pid"].(int64))
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("fork-orphan: pid %d is not running (the test needs it seen from the host's PID namespace)", pid)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("orphan %d outlived its worker", pid)
	}
}

// alive: pid runs and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestCgroupTreeMemory: memory_mb bounds a worker's whole tree, not only
// each process: four children writing 96 MiB each (each within its own
// RLIMIT_AS of 160 MiB) cannot all live under 160 MiB together.
func TestCgroupTreeMemory(t *testing.T) {
	_, p := cgroupRuntime(t, func(c *python.Config) { c.MemoryMB = 160; c.PoolSize = 1 }, false)
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "tree-memory", Params: map[string]any{"children": 4, "mb": 96}}, nil)
	var te *abi.ToolError
	switch {
	case err == nil:
		sigs := v.(map[string]any)["signals"].([]any)
		killed := 0
		for _, s := range sigs {
			if s.(int64) == int64(syscall.SIGKILL) {
				killed++
			}
		}
		if killed == 0 {
			t.Fatalf("children's exits %v: none was killed, so 4×96 MiB fit under a 160 MiB tree limit", sigs)
		}
	case errors.As(err, &te) && te.Code == abi.ProviderCrashed:
		// The kernel chose the worker itself: also within the limit.
	default:
		t.Fatalf("tree-memory: %v", err)
	}
	// Memory comes back: a small call is served (by a fresh worker if the
	// old one was killed).
	if _, err := p.Call(context.Background(), &abi.ToolCall{ID: "c2", Tool: "tree-memory", Params: map[string]any{"children": 1, "mb": 8}}, nil); err != nil {
		t.Fatalf("after the memory test: %v", err)
	}
	p.Close()
}
