package js

import (
	"log/slog"
	"syscall"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestWorkerLeadsItsOwnProcessGroup: a JS worker process ran in the
// host's process group, where a Python worker and an MCP server lead
// their own: a Ctrl-C at the terminal running `aios-host run` (SIGINT to
// the foreground group) killed every JS worker at once, before the host's
// shutdown, which waits for the calls in flight, could end them — those
// calls failed, and each worker's death was logged as a warning ("JS
// worker process ended" err="signal: interrupt"). The worker leads a
// group of its own; it still dies with the host (parent-death signal).
func TestWorkerLeadsItsOwnProcessGroup(t *testing.T) {
	var logs testutil.SyncBuffer
	p := loadIsolated(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, isolatedSource)
	pid := p.PID()
	if pid == 0 {
		t.Fatal("no worker pid")
	}
	pg, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	if pg != pid {
		t.Errorf("worker %d is in process group %d (the host's is %d): a SIGINT to the host's group kills it", pid, pg, syscall.Getpgrp())
	}
}
