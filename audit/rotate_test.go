package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// verifyChain verifies files as one log.
func verifyChain(t *testing.T, files []string) (int, Anchor, error) {
	t.Helper()
	n, last, _, err := VerifyFiles(files, VerifyOptions{})
	return n, last, err
}

func logFiles(t *testing.T, path string) []string {
	t.Helper()
	rot, err := RotatedFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rot {
		out = append(out, r.Path)
	}
	return append(out, path)
}

// TestRotation: with a small MaxBytes the log is split into several files
// named by their seq range; together they verify as one chain, a restart
// continues it (also from an empty current file), and a removed or
// swapped file is caught at the join.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	w, err := Open(path, Options{MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := 1; i <= n; i++ {
		w.Log(entry(i))
		if i%3 == 0 {
			if err := w.Sync(); err != nil { // a write group of three records
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rot, err := RotatedFiles(path)
	if err != nil || len(rot) < 3 {
		t.Fatalf("RotatedFiles = %v, %v; want several", rot, err)
	}
	next := uint64(1)
	for _, r := range rot {
		if r.First != next || r.Last < r.First || filepath.Base(r.Path) != filepath.Base(RotatedName(path, r.First, r.Last)) {
			t.Fatalf("rotated file %+v, want first %d", r, next)
		}
		st, _ := os.Stat(r.Path)
		if st.Size() < 2000 {
			t.Fatalf("%s rotated at %d bytes, below MaxBytes", r.Path, st.Size())
		}
		next = r.Last + 1
	}
	files := logFiles(t, path)
	total, last, err := verifyChain(t, files)
	if err != nil || total != n || last.Seq != n {
		t.Fatalf("chain of %d files: %d records, last %v, %v", len(files), total, last, err)
	}
	// Each file alone needs the anchor before it.
	f, _ := os.Open(rot[1].Path)
	_, _, err = VerifyWith(f, VerifyOptions{})
	f.Close()
	var ve *VerifyError
	if !errors.As(err, &ve) || !strings.Contains(ve.Reason, "want 1") {
		t.Fatalf("a later file verified alone: %v", err)
	}

	// A removed middle file, or two files swapped, break the chain.
	for name, bad := range map[string][]string{
		"removed": append(append([]string{}, files[:1]...), files[2:]...),
		"swapped": append([]string{files[1], files[0]}, files[2:]...),
	} {
		if _, _, err := verifyChain(t, bad); !errors.As(err, &ve) {
			t.Errorf("%s file: chain verified (%v)", name, err)
		}
	}

	// Restart: the chain continues in the current file.
	w, err = Open(path, Options{MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(n + 1))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if total, last, err := verifyChain(t, logFiles(t, path)); err != nil || total != n+1 || last.Seq != n+1 {
		t.Fatalf("after a restart: %d records, last %v, %v", total, last, err)
	}

	// Restart with the current file gone (or empty): the chain continues
	// from the newest rotated file.
	cur, _ := os.ReadFile(path)
	last1, _ := lastRecord(path)
	if err := os.Rename(path, RotatedName(path, firstSeqOf(t, path, cur), last1.Seq)); err != nil {
		t.Fatal(err)
	}
	w, err = Open(path, Options{MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(n + 2))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if total, last, err := verifyChain(t, logFiles(t, path)); err != nil || total != n+2 || last.Seq != n+2 {
		t.Fatalf("after a restart from rotated files only: %d records, last %v, %v", total, last, err)
	}
}

func firstSeqOf(t *testing.T, path string, data []byte) uint64 {
	t.Helper()
	line, _, _ := strings.Cut(string(data), "\n")
	r, reason := checkLine([]byte(line))
	if reason != "" {
		t.Fatalf("%s: %s", path, reason)
	}
	return r.Seq
}

func TestRotatedFilesIgnoresOtherNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a[1].jsonl") // glob metacharacters in the name
	for _, name := range []string{"a[1].5-9.jsonl", "a[1].1-4.jsonl", "a[1].x-4.jsonl", "a[1].9-2.jsonl", "a[1].0-3.jsonl", "other.1-4.jsonl", "a[1].10-12.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := RotatedFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got {
		names = append(names, filepath.Base(r.Path))
	}
	if want := "a[1].1-4.jsonl a[1].5-9.jsonl a[1].10-12.jsonl"; strings.Join(names, " ") != want {
		t.Fatalf("RotatedFiles = %v, want %s", names, want)
	}
	if RotatedName("/x/log", 1, 2) != "/x/log.1-2" {
		t.Fatalf("RotatedName without .jsonl = %s", RotatedName("/x/log", 1, 2))
	}
}

// TestRotationWhileSyncing rotates often while fsyncs are queued for the
// syncer (an fsync every three records, Sync calls from other goroutines):
// rotation waits for the syncer to finish with the old file, and the chain
// across every file is whole.
func TestRotationWhileSyncing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{MaxBytes: 4000, SyncEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 300
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range each {
				w.Log(entry(g*each + i))
				if i%50 == 0 {
					if err := w.Sync(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := logFiles(t, path)
	if len(files) < 10 {
		t.Fatalf("%d files, want many rotations", len(files))
	}
	if total, last, err := verifyChain(t, files); err != nil || total != workers*each || last.Seq != workers*each {
		t.Fatalf("chain of %d files: %d records, last %v, %v", len(files), total, last, err)
	}
}
