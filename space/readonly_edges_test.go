package space

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForReadingCreatesNothing: Open made the root and its .tmp folder
// even for a store only read (aios-host space get, list, spaces), which
// failed on a read-only folder. ForReading creates nothing, reads what
// is there, and refuses a Put.
func TestForReadingCreatesNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "spaces")
	s, err := Open(root, ForReading())
	if err != nil {
		t.Fatal(err)
	}
	if names, err := s.Spaces(); err != nil || len(names) != 0 {
		t.Fatalf("Spaces of a root not made: %v %v", names, err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("Open ForReading made the root (%v)", err)
	}
	if _, err := s.Put("docs", []byte("x")); err == nil {
		t.Fatal("Put on a store opened for reading succeeded")
	}
	w, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.Put("docs", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("docs", id); err != nil || string(got) != "hello" {
		t.Fatalf("Get through the reading store: %q %v", got, err)
	}
}

// TestForReadingRootNotAFolder: a root that is a file, or under one, is
// an error naming it, as Open without ForReading says, not a failure of
// a later read that names no path.
func TestForReadingRootNotAFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{file, filepath.Join(file, "spaces")} {
		if _, err := Open(root, ForReading()); err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("Open(%s, ForReading()): %v; want an error naming it", root, err)
		}
	}
}
