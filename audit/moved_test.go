package audit

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLogMovedAwayContinues: a log moved away under a running writer
// (logrotate without copytruncate) keeps what was written to it, and the
// chain continues in a new file at the path, which verifies after the
// moved file's last record; said once.
func TestLogMovedAwayContinues(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var buf testutil.SyncBuffer
	w, err := Open(path, Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	logSync := func(i int) {
		w.Log(entry(i))
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	logSync(1)
	moved := filepath.Join(dir, "audit.jsonl.1")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 5; i++ {
		logSync(i)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "no longer at its path"); n != 1 {
		t.Errorf("said %d times, want once: %s", n, buf.String())
	}
	mf, err := os.Open(moved)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	n1, last, err := VerifyWith(mf, VerifyOptions{})
	if err != nil || n1 < 1 || n1 >= 5 {
		t.Fatalf("moved file: %d records, %v (want 1..4, the rest in the new file)", n1, err)
	}
	nf, err := os.Open(path)
	if err != nil {
		t.Fatalf("no new file at the path: %v", err)
	}
	defer nf.Close()
	n2, _, err := VerifyWith(nf, VerifyOptions{After: last})
	if err != nil || n1+n2 != 5 {
		t.Fatalf("new file after %d:%s: %d records, %v; want the other %d", last.Seq, last.Hash, n2, err, 5-n1)
	}
}

// TestLogDeletedContinues: a log deleted under the writer: the records in
// it when it was last seen in place (at an fsync) go with it, the later
// ones — written to the unlinked file before the writer noticed, and lost
// with it before — are written again to a new file at the path, followed
// by the rest, chained on: the new file verifies after record 1.
func TestLogDeletedContinues(t *testing.T) {
	path, w := openWithOne(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, first, err := VerifyWith(f, VerifyOptions{})
	f.Close()
	if err != nil || first.Seq != 1 {
		t.Fatalf("record 1: %+v %v", first, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 4; i++ {
		w.Log(entry(i))
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no new file at the path: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"seq":2,`) || !strings.Contains(lines[2], `"seq":4,`) {
		t.Fatalf("new file, want records 2 to 4: %s", b)
	}
	nf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	if n, _, err := VerifyWith(nf, VerifyOptions{After: first}); err != nil || n != 3 {
		t.Fatalf("new file after record 1: %d records, %v", n, err)
	}
}

// TestLogReplacedRefuses: a log moved away and another, non-empty file put
// at its path: nothing is written into that file, the log fails (calls are
// refused) and says why.
func TestLogReplacedRefuses(t *testing.T) {
	path, w := openWithOne(t)
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("someone else's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		w.Log(entry(i))
		_ = w.Sync()
	}
	err := w.Failing()
	_ = w.Close()
	if err == nil || !strings.Contains(err.Error(), "not writing into it") {
		t.Fatalf("Failing: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "someone else's\n" {
		t.Fatalf("the other file was written into: %q", b)
	}
}

// openWithOne opens a log in a fresh folder and writes and syncs one
// record.
func openWithOne(t *testing.T) (string, *Writer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(1))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	return path, w
}
