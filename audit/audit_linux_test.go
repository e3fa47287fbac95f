package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteErrorReported breaks the log's file under the writer: Sync,
// Flush and Close report the error (naming the file), and Log neither
// blocks nor panics afterwards.
func TestWriteErrorReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(1))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	// Put a read-only descriptor in place of the file's, behind the I/O
	// goroutine's back: the next write fails as a full disk or a vanished
	// device would.
	ro, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ro)
	if err := unix.Dup3(ro, int(w.f.Fd()), unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	w.Log(entry(2))
	err = w.Sync()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Sync after a failed write = %v, want an error naming %s", err, path)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush after a failed write reported nothing")
	}
	for i := range 100 {
		w.Log(entry(3 + i))
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Close = %v, want the write error", err)
	}
	if lines := readLines(t, path); len(lines) != 1 {
		t.Fatalf("%d lines in the file, want the 1 written before the error", len(lines))
	}
}
