//go:build linux

package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Two hosts on one machine (a `run` and an `aios-host mcp` session, or a
// one-shot `list`/`call --as` loading the plugins): a host starting up
// removed the folder of the other, live host of its own PID namespace when
// that folder was empty (no python worker at that moment: between a
// worker's death and its replacement, or before its first python file).
// Every python worker the live host started afterwards failed ("mkdir
// …/aios-host-NS-PID/wN: no such file or directory") until it restarted —
// seen when a test binary and a `run` ran side by side.
func TestProbeRemoveStaleSparesLiveHostOfThisNamespace(t *testing.T) {
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
func TestProbeWorkerRemakesRemovedHostFolder(t *testing.T) {
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
