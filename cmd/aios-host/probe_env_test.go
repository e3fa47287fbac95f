package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestProbeBrokenLogPipeKeepsServing: a host whose stderr is a pipe whose
// reader went away (journald restarted, `aios-host run 2>&1 | grep` ended)
// keeps running: its log lines are lost, not its calls in flight and the
// audit records not yet written. Before, the first log line after that
// killed it with SIGPIPE (exit 141), without a shutdown. The helper below
// runs in a child process (this test binary again) with such a stderr.
func TestProbeBrokenLogPipeKeepsServing(t *testing.T) {
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestProbeBrokenLogPipeKeepsServing$")
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
