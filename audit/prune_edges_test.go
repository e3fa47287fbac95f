//go:build unix

package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// closeWithin closes w, failing the test when Close does not return in d.
func closeWithin(t *testing.T, w *Writer, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.Close() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("Close did not return within %v (the pruner is stuck)", d)
	}
}

// TestPruneFIFO: a FIFO at the pruned file's path, or at a rotated
// file's path, does not stop the pruner (opening a FIFO blocks until the
// other end opens it), so Close still returns; nothing is deleted.
func TestPruneFIFO(t *testing.T) {
	for _, at := range []string{"pruned", "rotated"} {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "audit.jsonl")
			logRotated(t, path, 1, 40, 0, nil)
			rot, _ := RotatedFiles(path)
			if len(rot) < 3 {
				t.Fatalf("rotated files %v", rot)
			}
			fifo := PrunedName(path)
			if at == "rotated" {
				fifo = rot[0].Path
				if err := os.Remove(fifo); err != nil {
					t.Fatal(err)
				}
			}
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			w, err := Open(path, Options{MaxBytes: 2000, MaxFiles: 1})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			closeWithin(t, w, 5*time.Second)
			after, _ := RotatedFiles(path)
			if len(after) != len(rot) {
				t.Fatalf("%d rotated files left of %d", len(after), len(rot))
			}
		})
	}
}

// TestPruneKeepsEditedMiddle: a rotated file edited in its middle
// (its last record and the join to the next file intact) does not verify:
// it is evidence, and the pruner kept only the join's check, so it deleted
// it and the edit with it. It is kept now, and the writer says why.
func TestPruneKeepsEditedMiddle(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	logRotated(t, path, 1, 40, 0, nil)
	rot, _ := RotatedFiles(path)
	data, err := os.ReadFile(rot[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) < 4 {
		t.Fatalf("%s holds %d lines", rot[0].Path, len(lines)-1)
	}
	first := lines[0]
	i := bytes.Index(first, []byte(`"tool":"`))
	first[i+8] ^= 1
	if err := os.WriteFile(rot[0].Path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var logged testutil.SyncBuffer
	logRotated(t, path, 41, 1, 1, slog.New(slog.NewTextHandler(&logged, nil)))
	if _, err := os.Stat(rot[0].Path); err != nil {
		t.Fatalf("the edited file was pruned: %v", err)
	}
	if !strings.Contains(logged.String(), "not pruned") || !strings.Contains(logged.String(), filepath.Base(rot[0].Path)) {
		t.Fatalf("the writer's log does not say why:\n%s", logged.String())
	}
}

// TestPruneAfterHandRemoval: once the pruner has pruned, a rotated
// file removed by someone else at the head (the oldest one left) is a gap
// after the last pruned anchor. The pruner went on pruning the next
// oldest, and its anchor then let verify pass over the gap: the removal
// was laundered. It now keeps the files and says the records are missing.
func TestPruneAfterHandRemoval(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	logRotated(t, path, 1, 60, 3, nil)
	rot, _ := RotatedFiles(path)
	if len(rot) != 3 || rot[0].First == 1 {
		t.Fatalf("rotated files %v", rot)
	}
	if err := os.Remove(rot[0].Path); err != nil { // not the pruner
		t.Fatal(err)
	}
	var logged testutil.SyncBuffer
	w, err := Open(path, Options{MaxBytes: 2000, MaxFiles: 1, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	closeWithin(t, w, 10*time.Second)
	if _, err := os.Stat(rot[1].Path); err != nil {
		t.Fatalf("the file after the one removed by hand was pruned: %v", err)
	}
	if a, ok, _ := PrunedAnchor(path, rot[2].First-1); ok {
		t.Fatalf("an anchor %v was kept past the gap: verify would pass over records %d-%d", a, rot[0].First, rot[0].Last)
	}
	if !strings.Contains(logged.String(), "not pruned") || !strings.Contains(logged.String(), "missing") {
		t.Fatalf("the writer's log does not say why:\n%s", logged.String())
	}
}

// TestPruneAfterCrash: the host stopped after appending a file's
// anchor and before deleting it: the next Open deletes it (the anchor
// names its last record) and goes on; verify from the anchors passes.
func TestPruneAfterCrash(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	logRotated(t, path, 1, 60, 3, nil)
	rot, _ := RotatedFiles(path)
	last, err := lastRecord(rot[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := appendPruned(PrunedName(path), Pruned{File: filepath.Base(rot[0].Path), First: rot[0].First, Last: rot[0].Last,
		Anchor: Anchor{Seq: last.Seq, Hash: last.Hash}.String()}); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{MaxBytes: 2000, MaxFiles: 1})
	if err != nil {
		t.Fatal(err)
	}
	closeWithin(t, w, 10*time.Second)
	after, _ := RotatedFiles(path)
	if len(after) != 1 || after[0] != rot[2] {
		t.Fatalf("rotated files left %v, want %v", after, rot[2:])
	}
	a, ok, err := PrunedAnchor(path, rot[2].First-1)
	if !ok || err != nil {
		t.Fatalf("no anchor before %v: %v", rot[2], err)
	}
	if _, l, _, err := VerifyFiles(logFiles(t, path), VerifyOptions{After: a}); err != nil || l.Seq != 60 {
		t.Fatalf("verify from %v: %v, %v", a, l, err)
	}
}

// TestPruneStopsAtMovedLog: a log moved away under the writer (not
// named like a rotated file) is a gap between rotated files: the pruner
// deletes nothing past it and says so.
func TestPruneStopsAtMovedLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var logged testutil.SyncBuffer
	w, err := Open(path, Options{MaxBytes: 2000, MaxFiles: 1, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	write := func(from, n int) {
		for i := from; i < from+n; i++ {
			w.Log(entry(i))
			if i%3 == 0 {
				if err := w.Sync(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	write(1, 12)
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	w.Log(entry(13))
	time.Sleep(400 * time.Millisecond) // SyncInterval: the writer notices
	write(14, 47)
	closeWithin(t, w, 10*time.Second)
	rot, _ := RotatedFiles(path)
	if len(rot) < 2 {
		t.Fatalf("rotated files %v: pruned past the moved file", rot)
	}
	if !strings.Contains(logged.String(), "not pruned") {
		t.Fatalf("no Warn:\n%s", logged.String())
	}
}
