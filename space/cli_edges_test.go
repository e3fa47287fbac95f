package space

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestPutRepairsSameSizeDamage: an object damaged in place (same
// size, other bytes) stayed damaged when its content was put again: Put
// took a file of the right size as already stored and returned the id, and
// every Get kept failing with ErrCorrupt.
func TestPutRepairsSameSizeDamage(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello world\n")
	id, err := s.Put("docs", data)
	if err != nil {
		t.Fatal(err)
	}
	h := id[len(IDPrefix):]
	p := filepath.Join(s.Root(), "docs", h[:2], h[2:])
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("jello world\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("docs", id); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get of the damaged object: %v", err)
	}
	if got, err := s.Put("docs", data); err != nil || got != id {
		t.Fatalf("Put again: %q, %v", got, err)
	}
	if got, err := s.Get("docs", id); err != nil || string(got) != string(data) {
		t.Fatalf("Get after the second Put: %q, %v", got, err)
	}
}

// TestHugeLimit: limits.max_object_bytes at the largest int64 made
// the read bound (limit+1) overflow: Get read nothing and called every
// object corrupt.
func TestHugeLimit(t *testing.T) {
	s, err := Open(t.TempDir(), WithMaxObjectSize(math.MaxInt64))
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Put("docs", []byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("docs", id); err != nil || string(got) != "content" {
		t.Fatalf("Get: %q, %v", got, err)
	}
}
