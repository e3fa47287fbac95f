package wire

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// TestWriteProgressDeadlinePerChunk: each ProgressChunk gets a deadline of
// its own; the bytes arrive whole and in order; a failed write stops it.
func TestWriteProgressDeadlinePerChunk(t *testing.T) {
	p := bytes.Repeat([]byte("0123456789"), ProgressChunk/4) // 2.5 chunks
	var buf bytes.Buffer
	var deadlines []time.Time
	set := func(d time.Time) error { deadlines = append(deadlines, d); return nil }
	start := time.Now()
	n, err := WriteProgress(&buf, set, p, time.Hour)
	if err != nil || n != len(p) || !bytes.Equal(buf.Bytes(), p) {
		t.Fatalf("wrote %d of %d, %v", n, len(p), err)
	}
	if len(deadlines) != 3 {
		t.Fatalf("%d deadlines for %d bytes, want 3", len(deadlines), len(p))
	}
	for _, d := range deadlines {
		if d.Before(start.Add(time.Hour)) {
			t.Fatalf("deadline %v is not timeout from its chunk's start", d)
		}
	}
	deadlines = nil
	if n, err := WriteProgress(&buf, set, p, 0); err != nil || n != len(p) || len(deadlines) != 0 {
		t.Fatalf("no timeout: %d, %v, %d deadlines; want the whole write under none", n, err, len(deadlines))
	}
	fail := errors.New("peer gone")
	fw := &failAfter{n: ProgressChunk, err: fail}
	if n, err := WriteProgress(fw, set, p, time.Hour); !errors.Is(err, fail) || n != ProgressChunk {
		t.Fatalf("a failing writer: %d, %v; want %d and its error", n, err, ProgressChunk)
	}
}

// failAfter takes n bytes, then fails.
type failAfter struct {
	n   int
	err error
}

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, w.err
	}
	k := min(len(p), w.n)
	w.n -= k
	return k, nil
}
