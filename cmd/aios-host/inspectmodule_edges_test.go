//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestInspectModuleFromPipe: `aios-host inspect <(curl …)` or a FIFO
// holding a core module failed with "not a WebAssembly binary (it does
// not start with the \0asm magic)": inspect read the file (bounded, to
// tell a component from a module) and the wasm runtime read it again,
// finding the pipe empty (and a file replaced in between was another
// module, read without the bound). The module is inspected from the bytes
// read once (a FIFO: the second read waited for a writer for good).
func TestInspectModuleFromPipe(t *testing.T) {
	bin, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "build", "wasm", "c-echo.wasm"))
	if err != nil {
		t.Skipf("c-echo.wasm is missing (make samples): %v", err)
	}
	e := newEnv(t)
	fifo := filepath.Join(t.TempDir(), "guest.wasm")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(bin)
			f.Close()
		}
		wrote <- err
	}()
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := e.run("", "inspect", fifo)
		done <- result{code, out, errs}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		// inspect opened the pipe again after reading it, and waits
		// for a writer that will not come: one is opened and closed.
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}()
		r = <-done
		t.Errorf("inspect waited 30 s on the pipe it had read: it opened it a second time")
	}
	// A writer still waiting for a reader (inspect did not open the
	// pipe) is let go: a reader opened and closed at once.
	if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
	werr := <-wrote
	if r.code != exitOK || !strings.Contains(r.out, "tool c-echo") {
		t.Fatalf("inspect of a pipe holding a core module: exit %d, stdout %q, stderr %q (writer: %v)", r.code, r.out, r.errs, werr)
	}
}
