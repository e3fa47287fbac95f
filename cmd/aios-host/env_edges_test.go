package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBrokenLogPipeKeepsServing: a host whose stderr is a pipe whose
// reader went away (journald restarted, `aios-host run 2>&1 | grep` ended)
// keeps running: its log lines are lost, not its calls in flight and the
// audit records not yet written. Before, the first log line after that
// killed it with SIGPIPE (exit 141), without a shutdown. The helper below
// runs in a child process (this test binary again) with such a stderr.
func TestBrokenLogPipeKeepsServing(t *testing.T) {
	if os.Getenv("AIOS_PROBE_SIGPIPE_CHILD") == "1" {
		keepServingOnBrokenPipe()
		os.Stderr.WriteString("a log line nobody reads\n")
		os.Stdout.WriteString("still here\n")
		os.Exit(0)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the log's reader is gone
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenLogPipeKeepsServing$")
	cmd.Env = append(os.Environ(), "AIOS_PROBE_SIGPIPE_CHILD=1")
	cmd.Stderr = w
	out, err := cmd.Output()
	w.Close()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("the host was killed by %v writing a log line to a broken pipe", ws.Signal())
			}
		}
		t.Fatalf("child: %v (%s)", err, out)
	}
	if !strings.Contains(string(out), "still here") {
		t.Fatalf("child stdout %q: it did not go on after the log line", out)
	}
}

// TestRunSocketInUseFailsBeforeLoading: `run` on a socket another
// host listens on fails before it loads a plugin (which can take seconds
// and start worker processes); before, it loaded every plugin folder and
// only then found the socket taken.
func TestRunSocketInUseFailsBeforeLoading(t *testing.T) {
	e := newEnv(t)
	wasm, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skip("samples not built:", err)
	}
	if err := os.WriteFile(filepath.Join(e.plugins, "c-echo.wasm"), wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "other.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	code, errs := runWith(t, strings.NewReader(""), io.Discard, "run", "--plugins", e.plugins, "--data", e.data, "--socket", sock)
	if code == 0 || !strings.Contains(errs, "another host is already listening") {
		t.Fatalf("run on a socket in use: exit %d, stderr %s; want a failure saying another host listens there", code, errs)
	}
	if strings.Contains(errs, "c-echo") {
		t.Errorf("run loaded the plugins before finding the socket taken:\n%s", errs)
	}
}

// TestRunInterruptedWhileLoading: SIGINT/SIGTERM while `run` loads
// its plugins stops it there: no list of plugins "not loaded: … context
// canceled" as if they were broken, no socket, no "aios-host serving"
// after the signal; exit 0, as for a signal while serving.
func TestRunInterruptedWhileLoading(t *testing.T) {
	e := newEnv(t)
	wasm, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skip("samples not built:", err)
	}
	// Five units, so that run prints a progress line for each.
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(e.plugins, fmt.Sprintf("c-echo-%d.wasm", i)), wasm, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the signal came before the plugins were loaded
	var out, errb syncBuffer
	sock := filepath.Join(t.TempDir(), "h.sock")
	code := run(ctx, []string{"run", "--plugins", e.plugins, "--data", e.data, "--socket", sock}, strings.NewReader(""), &out, &errb)
	errs := errb.String()
	if code != 0 {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, errs)
	}
	for _, bad := range []string{"context canceled", "aios-host serving", "JSON-RPC on unix socket", "FAILED"} {
		if strings.Contains(errs, bad) {
			t.Errorf("stderr says %q after an interrupt during loading:\n%s", bad, errs)
		}
	}
	if !strings.Contains(errs, "interrupted") {
		t.Errorf("stderr does not say it was interrupted:\n%s", errs)
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Errorf("socket %s left behind", sock)
	}
}
