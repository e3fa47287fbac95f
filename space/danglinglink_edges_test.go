package space

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPutIntoDanglingSpaceLinkSaysSo: a space whose folder was moved to
// another folder and linked back (README: a space's folder may be a link)
// and whose target is gone (moved again, a disk not mounted) failed every
// Put with "mkdir big: file exists", which says the opposite of what is
// wrong. The error says the space's folder is a link to a folder that does
// not exist, without the host's path; the fan-out folder likewise.
func TestPutIntoDanglingSpaceLinkSaysSo(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "unmounted")
	if err := os.Symlink(gone, filepath.Join(root, "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, err = s.Put("big", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), `space "big"`) || !strings.Contains(err.Error(), "big in the store is a link to a folder that does not exist") || strings.Contains(err.Error(), gone) {
		t.Errorf("Put into a space whose folder links to nothing: %v; want it to say so, without the link's target", err)
	}
	// A fan-out folder linked to nothing.
	data := []byte("y")
	hex := ID(data)[len(IDPrefix):]
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gone, filepath.Join(root, "docs", hex[:2])); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("docs", data)
	if want := "docs/" + hex[:2] + " in the store is a link to a folder that does not exist"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Put under a fan-out folder linked to nothing: %v; want %q", err, want)
	}
}

// TestListDanglingSpaceLinkSaysSo: List of a space whose folder is a link
// to a folder that does not exist (a disk not mounted) was an empty
// space, and aios-host space list said 'no space "big" yet (a space is
// made by its first object)' of a space holding objects elsewhere. It is
// an error saying the space's folder links to nothing; a space never made
// is still empty.
func TestListDanglingSpaceLinkSaysSo(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "unmounted")
	if err := os.Symlink(gone, filepath.Join(root, "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	ids, err := s.List("big")
	if err == nil || !strings.Contains(err.Error(), `space "big"`) || !strings.Contains(err.Error(), "big in the store is a link to a folder that does not exist") || strings.Contains(err.Error(), gone) {
		t.Errorf("List of a space whose folder links to nothing: %v %v; want an error saying so, without the link's target", ids, err)
	}
	if ids, err := s.List("never"); err != nil || len(ids) != 0 {
		t.Errorf("List of a space never made: %v %v; want none, no error", ids, err)
	}
}

// TestGetFromDanglingSpaceLinkSaysSo: Get of an object of a space whose
// folder is a link to a folder that does not exist was ErrNotFound, so
// a tool was told the object is not in the space, and aios-host space get
// that it is in none, when the space's disk is not mounted. It is an
// error saying the space's folder links to nothing; an object missing
// from a space whose folder is there is still ErrNotFound.
func TestGetFromDanglingSpaceLinkSaysSo(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "unmounted")
	if err := os.Symlink(gone, filepath.Join(root, "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	id := ID([]byte("on the unmounted disk"))
	_, err = s.Get("big", id)
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `space "big"`) || !strings.Contains(err.Error(), id) ||
		!strings.Contains(err.Error(), "big in the store is a link to a folder that does not exist") || strings.Contains(err.Error(), gone) {
		t.Errorf("Get from a space whose folder links to nothing: %v; want an error saying so, naming the object, without the link's target", err)
	}
	if _, err := s.Put("here", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("here", id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an object not in a space: %v; want ErrNotFound", err)
	}
}

// TestOpenDanglingRootLinkSaysSo: a store folder (DATA/spaces, or DATA
// itself) that is a link to a folder that does not exist (a disk not
// mounted) failed Open with "mkdir …/spaces: file exists", and opened
// ForReading as a store holding nothing, so space list said of every
// space that it was not made yet. Both say the link leads nowhere, naming
// it; a root that does not exist is still made, or read as empty.
func TestOpenDanglingRootLinkSaysSo(t *testing.T) {
	data := t.TempDir()
	gone := filepath.Join(t.TempDir(), "unmounted")
	root := filepath.Join(data, "spaces")
	if err := os.Symlink(gone, root); err != nil {
		t.Skip("no symlinks here:", err)
	}
	linkDir := filepath.Join(t.TempDir(), "data")
	if err := os.Symlink(gone, linkDir); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, filepath.Join(linkDir, "spaces")} {
		link := dir
		if dir != root {
			link = linkDir
		}
		for _, opts := range [][]Option{nil, {ForReading()}} {
			_, err := Open(dir, opts...)
			if err == nil || !strings.Contains(err.Error(), link+`" is a link to a folder that does not exist`) {
				t.Errorf("Open(%s, %d options): %v; want it to say %s is a link to nothing", dir, len(opts), err, link)
			}
		}
	}
	fresh := filepath.Join(t.TempDir(), "new", "spaces")
	if s, err := Open(fresh, ForReading()); err != nil {
		t.Errorf("Open ForReading of a root not made: %v", err)
	} else if names, err := s.Spaces(); err != nil || len(names) != 0 {
		t.Errorf("Spaces of a root not made: %v %v", names, err)
	}
	if _, err := Open(fresh); err != nil {
		t.Errorf("Open of a root not made: %v", err)
	}
}

// TestSizeInDanglingSpaceLinkSaysSo: Size (which an MCP resources/read
// asks before Get) of an object of a space whose folder is a link to
// nothing was ErrNotFound, "resource not found" to the client, where Get
// now says the link leads nowhere. Size says it too.
func TestSizeInDanglingSpaceLinkSaysSo(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "unmounted"), filepath.Join(root, "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	id := ID([]byte("on the unmounted disk"))
	if _, err := s.Size("big", id); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "big in the store is a link to a folder that does not exist") {
		t.Errorf("Size in a space whose folder links to nothing: %v; want an error saying so", err)
	}
	if _, err := s.Size("never", id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Size in a space never made: %v; want ErrNotFound", err)
	}
}
