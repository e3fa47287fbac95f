//go:build linux

package python

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCgroupCoMountedPidsMemory (found by a probe, fixed; the fault as it was): a v1 machine that mounts pids and
// memory as one hierarchy (-o pids,memory) gives both controllers the
// same parent folder; newWorker then makes the worker's folder for pids
// and again for memory, and the second mkdir fails: no worker can start
// (the cpu,cpuacct case is handled, this one is not).
func TestCgroupCoMountedPidsMemory(t *testing.T) {
	dir := t.TempDir()
	c := &cgroups{parents: map[string]string{"pids": dir, "memory": dir}}
	wc, err := c.newWorker(cgLimits{tasks: 16, memoryBytes: 64 << 20})
	if err != nil {
		t.Fatalf("pids and memory in one hierarchy: newWorker: %v", err)
	}
	wc.removeNow()
}

// TestCgroupCoMountedCPULimit (found by a probe, fixed; the fault as it was): when cpu shares a hierarchy
// with pids (or memory), newWorker skips the cpu folder, and with it the
// CFS quota: cpus is silently not applied although the cpu controller is
// there.
func TestCgroupCoMountedCPULimit(t *testing.T) {
	pids, mem := t.TempDir(), t.TempDir()
	c := &cgroups{parents: map[string]string{"pids": pids, "memory": mem, "cpu": pids}}
	wc, err := c.newWorker(cgLimits{tasks: 16, memoryBytes: 64 << 20, cpus: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range wc.dirs {
			_ = os.RemoveAll(d)
		}
	}()
	if _, err := os.Stat(filepath.Join(wc.dirs[0], "cpu.cfs_quota_us")); err != nil {
		t.Fatalf("cpus 0.5 with cpu co-mounted with pids: no cpu.cfs_quota_us written in %v (%v)", wc.dirs, err)
	}
}

const escaper = `import os, time, signal
from aios_sdk import Agent, tool

@Agent(id="org.test.escaper")
class Escaper:
    @tool(name="escape", parameters={"n": {"type": "integer"}})
    def escape(self, params):
        # Our own pids cgroup, as the kernel shows it (no cgroup namespace).
        path = ""
        for line in open("/proc/self/cgroup"):
            _, ctl, p = line.rstrip("\n").split(":", 2)
            if "pids" in ctl.split(","):
                path = p
        note = ""
        try:
            with open("/sys/fs/cgroup/pids" + path + "/pids.max", "w") as f:
                f.write("max")
        except OSError as e:
            note = "pids.max: %s" % e
        kids, err = [], ""
        for _ in range(params["n"]):
            try:
                pid = os.fork()
            except OSError as e:
                err = str(e)
                break
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            kids.append(pid)
        for pid in kids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        return {"forked": len(kids), "error": err, "note": note, "cgroup": path}
`

// TestCgroupWithoutLandlockSaysSo: the worker runs as the host's user,
// which owns its control group's folders and (as root) can write any
// cgroup file; only Landlock keeps cgroupfs out of its reach. Without it
// a tool can raise its own pids.max and fork past max_processes (a probe
// did): the host warns that the limits then bound only tools that do not
// try, and with Landlock the same tool cannot (TestCgroupTaskLimit's
// machine has it).
func TestCgroupWithoutLandlockSaysSo(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PoolSize = 1
	cfg.MaxProcesses = 16
	rt, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := rt.interp(ctx); err != nil {
		t.Skipf("no interpreter: %v", err)
	}
	rt.mu.Lock()
	if rt.layers.Cgroup == "" || rt.layers.Disabled {
		rt.mu.Unlock()
		t.Skipf("no control groups here: %s", rt.layers.CgroupErr)
	}
	landlock := rt.layers.Landlock
	degraded := strings.Join(rt.layers.Degraded(), "\n")
	if landlock > 0 && strings.Contains(degraded, "control groups without Landlock") {
		t.Errorf("with Landlock v%d the host warns: %s", landlock, degraded)
	}
	// A kernel without Landlock: everything else as detected.
	rt.layers.Landlock, rt.layers.LandlockErr = 0, "turned off for a test"
	if d := strings.Join(rt.layers.Degraded(), "\n"); !strings.Contains(d, "control groups without Landlock") {
		t.Errorf("without Landlock the host does not warn that a worker can change its control group: %s", d)
	}
	rt.layers.Landlock = landlock
	rt.mu.Unlock()
	if landlock == 0 {
		return
	}
	// With Landlock the escape fails.
	path := filepath.Join(t.TempDir(), "escaper.py")
	if err := os.WriteFile(path, []byte(escaper), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(ctx, abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	v, err := p.Call(ctx, &abi.ToolCall{ID: "c1", Tool: "escape", Params: map[string]any{"n": 40}}, nil)
	if err != nil {
		if strings.Contains(err.Error(), "Permission denied") {
			return // Landlock keeps the tool out of cgroupfs (and /proc/self/cgroup)
		}
		t.Fatal(err)
	}
	if forked, _ := v.(map[string]any)["forked"].(int64); forked >= int64(cfg.MaxProcesses) {
		t.Fatalf("with Landlock a worker under max_processes %d forked %d processes: %v", cfg.MaxProcesses, forked, v)
	}
}

// TestCgroupLeftoverOwnPIDFolder (found by a probe, fixed; the fault as it was): a host that died (SIGKILL, OOM)
// leaves aios-host-PID/w1…wN. removeStale skips the folder named for the
// current host's PID, and setupCgroups accepts it when it exists (EEXIST),
// so a host that gets the same PID again (PID 1 in a container, or a
// wrapped PID) reuses the folder with its leftovers: seq restarts at 1
// and newWorker's mkdir of w1 fails, so no python worker starts until the
// counter passes every leftover name. Here the leftover is made by hand:
// the next worker's name, already there.
func TestCgroupLeftoverOwnPIDFolder(t *testing.T) {
	c, err := hostCgroups()
	if err != nil {
		t.Skipf("no control groups here: %v", err)
	}
	name := "w" + strconv.FormatUint(c.seq.Load()+1, 10)
	var made []string
	for _, p := range c.parents {
		// The host's folder goes when its last runtime closes (an earlier
		// test's): the next worker makes it again, as this leftover needs.
		if err := c.remakeParent(p); err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(p, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatalf("making the leftover %s: %v", d, err)
		}
		made = append(made, d)
	}
	defer func() {
		for _, d := range made {
			_ = os.Remove(d)
		}
	}()
	wc, err := c.newWorker(cgLimits{tasks: 16})
	if err != nil {
		t.Fatalf("an empty leftover %s of an earlier host with this PID blocks the next worker: %v", name, err)
	}
	wc.destroy()
}

// TestCgroupStaleHostProcessesKilled (found by a probe, fixed; the fault as it was): a host that dies (SIGKILL,
// OOM, or an exit without Close) leaves its workers' cgroups; without a
// PID namespace the processes a tool forked live on in them (the worker
// dies on its pipe's EOF, its orphans do not). The next host's removeStale
// only removes empty folders: those processes are never killed and their
// folders never removed, though the host is the one party that knows they
// belong to a dead host's tools (docs/python.md says the dead host leaves
// "empty" folders). Here: a process in aios-host-<dead PID>/w1 of the
// pids hierarchy survives removeStale.
func TestCgroupStaleHostProcessesKilled(t *testing.T) {
	c, err := hostCgroups()
	if err != nil || c.v2 {
		t.Skipf("needs cgroup v1 here: %v", err)
	}
	dir := filepath.Dir(c.parents["pids"])
	const dead = 4194305 // above any pid_max: never alive
	stale := filepath.Join(dir, hostFolder(pidNS(), dead))
	w := filepath.Join(stale, "w1")
	if err := os.MkdirAll(w, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = os.Remove(w)
		_ = os.Remove(stale)
	}()
	if err := os.WriteFile(filepath.Join(w, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	removeStale(dir, false)
	// Killed, it is a zombie until reaped here: Wait says how it ended.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("process %d ended: %v, want killed", cmd.Process.Pid, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("process %d in the dead host's worker cgroup %s survived the next host's cleanup (folder left: %v)", cmd.Process.Pid, w, exists(w))
	}
	if exists(w) || exists(stale) {
		t.Fatalf("the dead host's folders are left: %v %v", exists(w), exists(stale))
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
