//go:build linux

package landlock

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
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
	go func() {
		runtime.LockOSThread() // never unlocked: the confined thread ends with this goroutine
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
	}()
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
