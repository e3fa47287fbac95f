//go:build linux

package caps

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestDropForExec: a program started from a thread that called
// DropForExec has no capabilities, even when the test runs as root (where
// it would otherwise get them all); the test's other threads keep theirs.
func TestDropForExec(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: no capabilities to drop")
	}
	status := func() string {
		out, err := exec.Command("grep", "^Cap", "/proc/self/status").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := status()
	if strings.Contains(before, "CapEff:\t0000000000000000") {
		t.Skip("this root holds no capabilities (a restricted container): nothing to drop")
	}
	ch := make(chan string, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the changed thread ends with this goroutine
		if err := DropForExec(); err != nil {
			ch <- "error: " + err.Error()
			return
		}
		out, err := exec.Command("grep", "^Cap", "/proc/self/status").Output()
		if err != nil {
			ch <- "error: " + err.Error()
			return
		}
		ch <- string(out)
	}()
	after := <-ch
	for _, field := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if !strings.Contains(after, field+":\t0000000000000000") {
			t.Errorf("%s of a child started after DropForExec is not empty:\n%s", field, after)
		}
	}
	if again := status(); again != before {
		t.Errorf("another thread lost its capabilities:\nbefore %s\nafter %s", before, again)
	}
}
