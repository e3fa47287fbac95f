package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestRotationRenameRefusedWritesOn: a rotation whose rename failed (an
// append-only or immutable log, chattr +a or +i, which hardening guides
// advise for audit logs; a file already at the rotated name) stopped the
// log for good ("nothing more is written and calls are refused"), and a
// restart did not help: the next write tried again. The rename changes
// nothing when it fails, and the file was synced before it: the writer
// says so at Warn and writes on, trying again once the file has grown by
// MaxBytes more, and rotates as usual once the rename works.
func TestRotationRenameRefusedWritesOn(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	var tries atomic.Int32
	old := renameLog
	renameLog = func(from, to string) error {
		tries.Add(1)
		if refuse.Load() {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EPERM}
		}
		return old(from, to)
	}
	t.Cleanup(func() { renameLog = old })

	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var logs bytes.Buffer
	w, err := Open(path, Options{MaxBytes: 2000, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	logSome := func(k int) {
		t.Helper()
		for range k {
			n++
			w.Log(entry(n))
			if err := w.Sync(); err != nil {
				t.Fatalf("record %d: Sync: %v", n, err)
			}
		}
	}
	logSome(12) // ~1.1 KiB a record: past 2000 bytes several times
	if err := w.Failing(); err != nil {
		t.Fatalf("the log fails after a refused rename: %v", err)
	}
	if got := tries.Load(); got == 0 || got > 7 {
		t.Fatalf("%d renames tried for 12 records; want some, at most one per 2000 bytes", got)
	}
	if !strings.Contains(logs.String(), "audit log not rotated") {
		t.Errorf("no warning said the log was not rotated:\n%s", logs.String())
	}
	if rot, _ := RotatedFiles(path); len(rot) != 0 {
		t.Fatalf("rotated files with every rename refused: %v", rot)
	}
	// The rename works again: the file is rotated at the next try.
	refuse.Store(false)
	logSome(12)
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rot, err := RotatedFiles(path)
	if err != nil || len(rot) == 0 {
		t.Fatalf("no rotation once the rename works: %v, %v", rot, err)
	}
	if rot[0].First != 1 {
		t.Fatalf("the first rotated file starts at record %d, want 1", rot[0].First)
	}
	total, last, failed, err := VerifyFiles(logFiles(t, path), VerifyOptions{})
	if err != nil || total != n || last.Seq != uint64(n) {
		t.Fatalf("the log: %d records, last %v, %s: %v; want %d", total, last, failed, err, n)
	}

	// A file already at the rotated name is not replaced, and the log
	// goes on too.
	path2 := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err = Open(path2, Options{MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for k := uint64(1); k <= 5; k++ {
		if err := os.WriteFile(RotatedName(path2, 1, k), []byte("kept\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 5; i++ {
		w.Log(entry(i))
		if err := w.Sync(); err != nil {
			t.Fatalf("record %d with a file at the rotated name: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for k := uint64(1); k <= 5; k++ {
		if b, _ := os.ReadFile(RotatedName(path2, 1, k)); string(b) != "kept\n" {
			t.Fatalf("the file at the rotated name %s was replaced: %q", RotatedName(path2, 1, k), b)
		}
	}
	f, err := os.Open(path2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := Verify(f); err != nil || got != 5 {
		t.Fatalf("the log kept: %d records, %v; want 5", got, err)
	}
}
