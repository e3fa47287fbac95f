package python

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// The first load of a .py file probes the interpreter under the load's
// context. A load cancelled meanwhile (SIGTERM while `run` or `mcp` loads
// the plugins, discovery closing) killed the probe, and the load failed
// "python interpreter … does not run: signal: killed", logged at Error as
// if the interpreter were broken; discovery, which says nothing of a load
// it interrupted, could not tell (the cancellation was not in the error).
func TestInterpreterProbeCancelled(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "python3")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nsleep 10\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "t.py")
	if err := os.WriteFile(file, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Interpreter = slow
	rt, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	p, err := rt.Load(ctx, abi.Source{Path: file})
	if p != nil {
		_ = p.Close()
	}
	if err == nil {
		t.Fatal("a load cancelled while the interpreter was probed succeeded")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the cancelled load took %v", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("the error of a cancelled load does not carry the cancellation: %v", err)
	}
	if strings.Contains(err.Error(), "does not run") {
		t.Errorf("a probe cut short by the load's cancellation blamed on the interpreter: %v", err)
	}
}

// An interpreter that does not answer its probe (a wrapper that waits for
// something, its child holding the output pipes) held the load past the
// probe's timeout for as long as that child lived, then was said not to
// run ("signal: killed"); it fails at the timeout, saying so.
func TestInterpreterProbeTimeout(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "python3")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nsleep 10\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "t.py")
	if err := os.WriteFile(file, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { probeTimeout = d }(probeTimeout)
	probeTimeout = 300 * time.Millisecond
	cfg := DefaultConfig()
	cfg.Interpreter = slow
	rt, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	start := time.Now()
	p, err := rt.Load(context.Background(), abi.Source{Path: file})
	if p != nil {
		_ = p.Close()
	}
	if err == nil {
		t.Fatal("a load whose interpreter never answered succeeded")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the load took %v, past the probe's %v timeout", took, probeTimeout)
	}
	if !strings.Contains(err.Error(), "did not answer its probe") {
		t.Errorf("the error does not say the probe timed out: %v", err)
	}
}
