package space

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestSpaceQuota: a space's objects may not pass WithMaxSpaceBytes; the
// usage of objects already on disk counts, a failed Put gives its bytes
// back, a Delete frees them, other spaces have their own quota, and
// storing content already there costs nothing.
func TestSpaceQuota(t *testing.T) {
	dir := t.TempDir()
	pre, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pre.Put("s", bytes.Repeat([]byte("a"), 600)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, WithMaxSpaceBytes(1000))
	if err != nil {
		t.Fatal(err)
	}
	// 600 bytes were stored before this Store opened.
	_, err = s.Put("s", bytes.Repeat([]byte("b"), 500))
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), `space "s" would pass its quota of 1000 bytes (600 used`) {
		t.Fatalf("put past the quota: %v", err)
	}
	b, err := s.Put("s", bytes.Repeat([]byte("b"), 400))
	if err != nil {
		t.Fatalf("put within the quota (after a refused one): %v", err)
	}
	if _, err := s.Put("s", bytes.Repeat([]byte("b"), 400)); err != nil {
		t.Fatalf("the same content again costs nothing: %v", err)
	}
	if _, err := s.Put("s", []byte("c")); !errors.Is(err, ErrFull) {
		t.Fatalf("one byte past 1000: %v", err)
	}
	if _, err := s.Put("other", bytes.Repeat([]byte("d"), 1000)); err != nil {
		t.Fatalf("another space has its own quota: %v", err)
	}
	if err := s.Delete("s", b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("s", bytes.Repeat([]byte("e"), 400)); err != nil {
		t.Fatalf("after a delete freed 400 bytes: %v", err)
	}
	if _, err := s.Put("s", bytes.Repeat([]byte("f"), 2000)); !errors.Is(err, ErrFull) {
		t.Fatalf("an object larger than the quota: %v", err)
	}
}

// TestMinFreeBytes: a Put that would leave less free disk than the
// reserve fails with ErrFull naming it; a reserve the disk has room for
// does not get in the way.
func TestMinFreeBytes(t *testing.T) {
	free, ok := freeBytes(t.TempDir())
	if !ok {
		t.Skip("free disk space is not known on this platform")
	}
	full, err := Open(t.TempDir(), WithMinFreeBytes(free+1<<40))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := full.Put("s", []byte("x")); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "limits.min_free_bytes") {
		t.Fatalf("put past the reserve: %v", err)
	}
	roomy, err := Open(t.TempDir(), WithMinFreeBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roomy.Put("s", []byte("x")); err != nil {
		t.Fatalf("put with room: %v", err)
	}
}
