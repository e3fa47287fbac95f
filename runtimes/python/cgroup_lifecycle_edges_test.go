//go:build linux

package python

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// Two hosts on one machine (a `run` and an `aios-host mcp` session, or a
// one-shot `list`/`call --as` loading the plugins): a host starting up
// removed the folder of the other, live host of its own PID namespace when
// that folder was empty (no python worker at that moment: between a
// worker's death and its replacement, or before its first python file).
// Every python worker the live host started afterwards failed ("mkdir
// …/aios-host-NS-PID/wN: no such file or directory") until it restarted —
// seen when a test binary and a `run` ran side by side.
func TestRemoveStaleSparesLiveHostOfThisNamespace(t *testing.T) {
	cmd := exec.Command("sleep", "600") // a live host's pid
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	dir := t.TempDir()
	live := filepath.Join(dir, hostFolder(pidNS(), cmd.Process.Pid))
	if err := os.MkdirAll(filepath.Join(live, "w3"), 0o700); err != nil {
		t.Fatal(err)
	}
	removeStale(dir, false)
	if _, err := os.Stat(filepath.Join(live, "w3")); err != nil {
		t.Fatalf("the live host's (empty) worker folder was removed: %v", err)
	}
	if err := os.Remove(filepath.Join(live, "w3")); err != nil {
		t.Fatal(err)
	}
	removeStale(dir, false)
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("the live host's (empty) folder was removed: %v", err)
	}
}

// The host's own folder removed under it (by another host that took it for
// stale: one of another PID namespace, or one without the fix above): the
// next worker makes it again instead of failing for good.
func TestWorkerRemakesRemovedHostFolder(t *testing.T) {
	dir := t.TempDir()
	parent := filepath.Join(dir, hostFolder(pidNS(), os.Getpid()))
	c := &cgroups{parents: map[string]string{"pids": parent}}
	wc, err := c.newWorker(cgLimits{})
	if err != nil {
		t.Fatalf("a worker group after the host's folder was removed: %v", err)
	}
	if _, err := os.Stat(wc.dirs[0]); err != nil {
		t.Fatal(err)
	}
}

// A clean shutdown (SIGTERM to `run`) left the host's control-group
// folders: /sys/fs/cgroup/<ctl>/aios-host-NS-PID/ with a wN folder for each
// worker alive at exit. Provider.Close only tells workers to go, and
// nothing removed the host's own folder. Runtime.Close waits for the
// runtime's workers to be reaped and removes the folders.
func TestCloseRemovesCgroupFolders(t *testing.T) {
	rt, err := New(DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.py")
	if err := os.WriteFile(path, []byte("from aios_sdk import tool\n@tool(name='t')\ndef t(p, ctx):\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Trust: abi.System})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Layers().Cgroup == "" {
		_ = p.Close()
		t.Skip("no control groups here")
	}
	c, err := hostCgroups()
	if err != nil {
		t.Skip(err)
	}
	_ = p.Close()
	rt.Close()
	for _, parent := range c.parents {
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			if e.IsDir() {
				t.Errorf("worker group %s left after Close", filepath.Join(parent, e.Name()))
			}
		}
		if _, err := os.Stat(parent); err == nil && len(ents) == 0 {
			t.Errorf("the host's folder %s left after Close", parent)
		}
	}
}
