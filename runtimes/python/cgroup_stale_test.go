//go:build linux

package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRemoveStaleSparesOtherNamespaces: removeStale decides a
// host is dead by kill(pid, 0) in *this* PID namespace, and takes a
// folder named for this process's own PID as "an earlier host's". Hosts
// in other PID namespaces that share the cgroup (two hosts each PID 1
// of its own namespace — bwrap/unshare --pid, containers with a shared
// cgroup — or any pid of another namespace that is free here) are alive,
// yet their workers' processes are SIGKILLed and their folders removed,
// so the live host's next newWorker fails (its parent folder is gone).
// Here the folders are made in a temporary directory (cgroup.procs as a
// plain file) and a sleep stands for the live host's worker.
func TestRemoveStaleSparesOtherNamespaces(t *testing.T) {
	// A pid free in this namespace: a live host of another namespace may have it.
	free := 0
	for n := 200000; n > 1000; n-- {
		if err := unix.Kill(n, 0); err == unix.ESRCH {
			free = n
			break
		}
	}
	for _, name := range []string{"aios-host-" + strconv.Itoa(os.Getpid()), "aios-host-" + strconv.Itoa(free),
		hostFolder(pidNS()+1, free), hostFolder(pidNS()+1, os.Getpid())} {
		dir := t.TempDir()
		w := filepath.Join(dir, name, "w1")
		if err := os.MkdirAll(w, 0o700); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		removeStale(dir, false)
		select {
		case err := <-done:
			t.Errorf("folder %s (a live host of another PID namespace can own it): its worker's process was killed at start-up: %v", name, err)
		case <-time.After(300 * time.Millisecond):
			_ = cmd.Process.Kill()
			<-done
		}
	}
}
