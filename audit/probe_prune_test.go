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

// TestProbePruneFIFO: a FIFO at the pruned file's path, or at a rotated
// file's path, does not stop the pruner (opening a FIFO blocks until the
// other end opens it), so Close still returns; nothing is deleted.
func TestProbePruneFIFO(t *testing.T) {
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

// TestProbePruneKeepsEditedMiddle: a rotated file edited in its middle
// (its last record and the join to the next file intact) does not verify:
// it is evidence, and the pruner kept only the join's check, so it deleted
// it and the edit with it. It is kept now, and the writer says why.
func TestProbePruneKeepsEditedMiddle(t *testing.T) {
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
