package space

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSymlinkedObjectListedAndSized: an object file that is a link to
// the same object in another space (an operator deduplicating a store by
// hand) was read by Get and Has, through the link, but List left it out
// and Size called it corrupt, "not a regular file", so an MCP client
// neither listed it nor could read it (resources/read asks Size first)
// while a tool read it. List and Size follow the link as Get does; a
// link to nothing is still neither listed nor sized.
func TestSymlinkedObjectListedAndSized(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("shared content")
	id, err := s.Put("a", data)
	if err != nil {
		t.Fatal(err)
	}
	hex := id[len(IDPrefix):]
	if err := os.MkdirAll(filepath.Join(root, "b", hex[:2]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "a", hex[:2], hex[2:]), filepath.Join(root, "b", hex[:2], hex[2:])); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if got, err := s.Get("b", id); err != nil || string(got) != string(data) {
		t.Fatalf("Get through the link: %q %v", got, err)
	}
	if ids, err := s.List("b"); err != nil || !slices.Equal(ids, []string{id}) {
		t.Errorf("List(b) = %v %v; want the linked object %s", ids, err, id)
	}
	if n, err := s.Size("b", id); err != nil || n != int64(len(data)) {
		t.Errorf("Size(b) = %d %v; want %d", n, err, len(data))
	}
	// A link to nothing is no object.
	other := ID([]byte("gone"))[len(IDPrefix):]
	if err := os.MkdirAll(filepath.Join(root, "b", other[:2]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(root, "b", other[:2], other[2:])); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.List("b"); err != nil || !slices.Equal(ids, []string{id}) {
		t.Errorf("List(b) with a link to nothing = %v %v; want only %s", ids, err, id)
	}
	if _, err := s.Size("b", IDPrefix+other); err == nil {
		t.Errorf("Size of a link to nothing: no error")
	}
}
