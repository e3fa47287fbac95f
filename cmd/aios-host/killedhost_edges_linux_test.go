package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestKilledHostTakesMCPServers: a host killed with SIGKILL (the OOM
// killer, kill -9) closes no server's stdin and signals none, and an MCP
// server that does not exit at the end of its stdin ran on for good, one
// more each time the host was restarted. The servers die with the host.
func TestKilledHostTakesMCPServers(t *testing.T) {
	e := newEnv(t)
	cfg, pids := stubbornServers(t, 2)
	cmd, _, done := probeChildIn(t, nil, "aios-host serving", "run", "--config", cfg, "--plugins", e.plugins, "--data", e.data,
		"--log-level", "info", "--socket", filepath.Join(t.TempDir(), "h.sock"))
	var started []int
	deadline := time.Now().Add(60 * time.Second)
	for _, p := range pids {
		pid := readPid(p)
		for ; pid == 0; pid = readPid(p) {
			if time.Now().After(deadline) {
				t.Fatalf("server pid file %s not written", p)
			}
			time.Sleep(20 * time.Millisecond)
		}
		started = append(started, pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done <- <-done // (probeChildIn's cleanup reads it too)
	deadline = time.Now().Add(30 * time.Second)
	for _, pid := range started {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("MCP server %d still running 30 s after its host was killed", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
