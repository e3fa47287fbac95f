//go:build unix

package abi

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSourceReadFileBounded: the host checked a plugin file's size before
// the loader ran, but the loaders then read the whole file, however large
// it had grown (or whatever was swapped in: a FIFO blocked the load for
// good). Source.ReadFile keeps to MaxBytes and refuses a file that is not
// regular, naming the file and the limit.
func TestSourceReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.wasm")
	if err := os.WriteFile(p, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := (Source{Path: p, MaxBytes: 1000}).ReadFile(); err != nil || len(b) != 1000 {
		t.Fatalf("a file of exactly MaxBytes: %d bytes, %v", len(b), err)
	}
	_, err := Source{Path: p, MaxBytes: 999}.ReadFile()
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "limits.max_plugin_bytes") {
		t.Fatalf("a file over MaxBytes: %v", err)
	}
	if b, err := (Source{Path: p}).ReadFile(); err != nil || len(b) != 1000 {
		t.Fatalf("no bound: %d bytes, %v", len(b), err)
	}
	fifo := filepath.Join(dir, "fifo.wasm")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Source{Path: fifo, MaxBytes: 1 << 20}.ReadFile()
		done <- err
	}()
	if err := <-done; err == nil || !strings.Contains(err.Error(), fifo) {
		t.Fatalf("a FIFO: %v", err)
	}
}
