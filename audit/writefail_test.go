package audit

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestWriteFailureHoldsRecords: while writes fail (a full disk), the
// writer holds the records, says so through Failing, cuts a partial write
// off, and writes everything once the disk has room again: no record is
// lost and the chain verifies. Before, the first failed write turned the
// log off for good while the host went on serving calls.
func TestWriteFailureHoldsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var full atomic.Bool
	full.Store(true)
	w, err := Open(path, Options{Buffer: 64, WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			n, _ := f.Write(b[:len(b)/2]) // half of it reaches the file
			return n, syscall.ENOSPC
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	done := make(chan struct{})
	go func() {
		for i := range n {
			w.Log(entry(i)) // blocks when the queue is full: back-pressure
		}
		close(done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for w.Failing() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Failing stayed nil while writes failed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := w.Failing(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Failing = %v, want ENOSPC", err)
	}
	// Sync and Flush answer at once while the log fails.
	if err := w.Flush(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Flush while failing = %v, want ENOSPC", err)
	}
	full.Store(false)
	<-done
	for w.Failing() != nil {
		if time.Now().After(deadline) {
			t.Fatal("Failing stayed set after the disk had room again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := Verify(f)
	if err != nil || records != n {
		t.Fatalf("Verify: %d records, %v; want %d and no error", records, err, n)
	}
}

// TestWriteFailureAtClose: a write that still fails when the writer is
// closed is reported by Close, and the file holds only whole records.
func TestWriteFailureAtClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var full atomic.Bool
	w, err := Open(path, Options{WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			n, _ := f.Write(b[:len(b)/2])
			return n, syscall.ENOSPC
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(0))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	full.Store(true)
	w.Log(entry(1))
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close = %v, want ENOSPC", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if records, err := Verify(f); err != nil || records != 1 {
		t.Fatalf("Verify: %d records, %v; want the 1 whole record", records, err)
	}
}
