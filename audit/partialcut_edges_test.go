package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestPartialWriteCutAfterLogEmptied: a log emptied by hand while the disk
// is full (`> audit.jsonl`, to free room) got its next partial write cut
// off at the size the writer had written, not at the file's end: the
// truncate grew the emptied file back to that size, a hole of NUL bytes
// that the records then followed (what O_APPEND is there to avoid). The
// partial write is cut where it went, at the file's end.
func TestPartialWriteCutAfterLogEmptied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var full atomic.Bool
	w, err := Open(path, Options{WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			n, _ := f.Write(b[:len(b)/2]) // half of it reaches the file
			return n, syscall.ENOSPC
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 20; i++ {
		w.Log(entry(i))
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, h20, err := Head(bytes.NewReader(before))
	if err != nil || n != 20 {
		t.Fatalf("before: %d records, %v", n, err)
	}
	full.Store(true)
	if err := os.Truncate(path, 0); err != nil { // emptied by hand
		t.Fatal(err)
	}
	w.Log(entry(21))
	deadline := time.Now().Add(10 * time.Second)
	for w.Failing() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Failing stayed nil while writes failed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	full.Store(false)
	for w.Failing() != nil {
		if time.Now().After(deadline) {
			t.Fatal("Failing stayed set after the disk had room again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		t.Fatalf("the log holds NUL bytes from offset %d (%d bytes in all): the partial write was cut at the writer's old size", i, len(data))
	}
	if n, last, err := VerifyWith(bytes.NewReader(data), VerifyOptions{After: Anchor{Seq: 20, Hash: h20}}); err != nil || n != 1 || last.Seq != 21 {
		t.Fatalf("the emptied log: %d records to %v, %v; want record 21 alone", n, last, err)
	}
}
