package fsperm

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMkdirAllSyncsParentsOfWhatItMade: each folder made is synced in its
// parent, the deepest first; a folder already there syncs nothing.
func TestMkdirAllSyncsParentsOfWhatItMade(t *testing.T) {
	top := t.TempDir()
	var got []string
	rec := func(d string) { got = append(got, d) }
	dir := filepath.Join(top, "a", "b", "c")
	if err := MkdirAll(dir, 0o700, rec); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("%s not made: %v", dir, err)
	}
	want := []string{filepath.Join(top, "a", "b"), filepath.Join(top, "a"), top}
	if !slices.Equal(got, want) {
		t.Fatalf("synced %q, want %q", got, want)
	}
	got = nil
	if err := MkdirAll(dir, 0o700, rec); err != nil || len(got) != 0 {
		t.Fatalf("again: err %v, synced %q; want nothing", err, got)
	}
	file := filepath.Join(top, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(file, "x"), 0o700, rec); err == nil || len(got) != 0 {
		t.Fatalf("under a file: err %v, synced %q; want an error and nothing synced", err, got)
	}
}
