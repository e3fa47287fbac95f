//go:build linux

package landlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRestrictThread confines a throwaway thread to one folder: a file in
// it can be read, one outside cannot, and nothing can be written.
func TestRestrictThread(t *testing.T) {
	v, err := Version()
	if err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	in, out := t.TempDir(), t.TempDir()
	for _, d := range []string{in, out} {
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type result struct{ readIn, readOut, write error }
	ch := make(chan result, 1)
	// GoLocked: a confined main thread would confine the rest of the test
	// binary (and put it in the domain TestScopedSignals checks against).
	GoLocked(func() {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			ch <- result{readIn: err}
			return
		}
		if err := RestrictThread(v, []Rule{{Path: in}}, true); err != nil {
			ch <- result{readIn: err}
			return
		}
		var r result
		_, r.readIn = os.ReadFile(filepath.Join(in, "f"))
		_, r.readOut = os.ReadFile(filepath.Join(out, "f"))
		r.write = os.WriteFile(filepath.Join(in, "f"), []byte("y"), 0o600)
		ch <- r
	})
	r := <-ch
	if r.readIn != nil {
		t.Fatalf("reading beneath a rule: %v", r.readIn)
	}
	if !errors.Is(r.readOut, os.ErrPermission) {
		t.Errorf("reading outside the rules: %v, want permission denied", r.readOut)
	}
	if !errors.Is(r.write, os.ErrPermission) {
		t.Errorf("writing beneath a read-only rule: %v, want permission denied", r.write)
	}
	// The test's own thread is not confined.
	if _, err := os.ReadFile(filepath.Join(out, "f")); err != nil {
		t.Errorf("another thread was confined too: %v", err)
	}
}

// TestScopedSignals: with ABI >= 6, a process started from a restricted
// thread cannot signal a process outside its domain (the test binary
// itself, here: kill -0 is refused), while it still may signal itself.
func TestScopedSignals(t *testing.T) {
	v, err := Version()
	if err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	if v < 6 {
		t.Skipf("Landlock ABI %d has no signal scoping (6)", v)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ch := make(chan string, 1)
	// GoLocked, not a bare LockOSThread: a goroutine may land on the main
	// thread, and a confined main thread would put the host itself in the
	// domain (the test then saw the host reachable, now and then).
	GoLocked(func() {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			ch <- err.Error()
			return
		}
		rules := []Rule{{Path: sh}, {Path: "/bin"}, {Path: "/usr"}, {Path: "/lib"}, {Path: "/lib64"}, {Path: "/etc/ld.so.cache"}, {Path: os.DevNull, Write: true}}
		if err := RestrictThread(v, rules, true); err != nil {
			ch <- err.Error()
			return
		}
		script := "kill -0 " + strconv.Itoa(os.Getpid()) + " 2>/dev/null && echo host-reachable || echo host-refused; kill -0 $$ && echo self-ok"
		out, err := exec.Command(sh, "-c", script).CombinedOutput()
		if err != nil {
			ch <- "sh: " + err.Error() + ": " + string(out)
			return
		}
		ch <- string(out)
	})
	if got := <-ch; got != "host-refused\nself-ok\n" {
		t.Fatalf("confined shell: %q, want the host refused and itself reachable", got)
	}
}

// TestGoLockedNeverMainThread: fn never runs on the process's main thread
// (the thread group leader), however the scheduler places the goroutine.
func TestGoLockedNeverMainThread(t *testing.T) {
	for range 200 {
		ch := make(chan bool, 1)
		GoLocked(func() { ch <- unix.Gettid() == unix.Getpid() })
		if <-ch {
			t.Fatal("GoLocked ran fn on the main thread")
		}
	}
}
