package space

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPutOverFolder: an object's file replaced by a folder (a stray
// mkdir, a restore gone wrong) made every Put of that content fail with
// the rename's "file exists", naming two paths and not the problem. It now
// says that the object's path is a folder and to remove it; Get calls it
// not a regular file; a Put after the folder is removed stores the object.
func TestPutOverFolder(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello")
	id := ID(data)
	p, err := s.objectPath("sp", id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("sp", data)
	if err == nil || !strings.Contains(err.Error(), "is a folder") || !strings.Contains(err.Error(), id) {
		t.Fatalf("Put over a folder: %v", err)
	}
	if _, err := s.Get("sp", id); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Get of a folder: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Root(), tmpDir)); len(ents) != 0 {
		t.Fatalf("temporary files left: %v", ents)
	}
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Put("sp", data); err != nil || got != id {
		t.Fatalf("Put after the folder was removed: %v, %v", got, err)
	}
}
