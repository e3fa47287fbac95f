package space

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDeleteInLinkedFanOutFolderKeepsTheRest: Delete removes the fan-out
// folder it empties with os.Remove, which unlinks a link whatever its
// folder holds: in a fan-out folder moved elsewhere and linked back (which
// Get, List and the quota follow), deleting one object removed the link,
// and every other object of that folder was gone from the space (Get
// NotFound, not listed). A linked fan-out folder is left in place; only a
// folder of the store's own that the Delete emptied is removed.
func TestDeleteInLinkedFanOutFolderKeepsTheRest(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "store")
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	// Two objects of one fan-out folder.
	first, err := s.Put("docs", []byte("object 0"))
	if err != nil {
		t.Fatal(err)
	}
	fanName := strings.TrimPrefix(first, IDPrefix)[:2]
	var second string
	for i := 1; second == ""; i++ {
		data := []byte(fmt.Sprintf("object %d", i))
		if strings.TrimPrefix(ID(data), IDPrefix)[:2] == fanName {
			if second, err = s.Put("docs", data); err != nil {
				t.Fatal(err)
			}
		}
	}
	fan := filepath.Join(root, "docs", fanName)
	moved := filepath.Join(base, "moved")
	if err := os.Rename(fan, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, fan); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := s.Delete("docs", first); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("docs", second); err != nil {
		t.Errorf("Get of the other object of the linked fan-out folder after a Delete: %v", err)
	}
	if ids, err := s.List("docs"); err != nil || !slices.Equal(ids, []string{second}) {
		t.Errorf("List(docs) = %v %v; want [%s]", ids, err, second)
	}
	// Emptied, the link stays: the folder is the operator's.
	if err := s.Delete("docs", second); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(fan); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link %s after its folder was emptied: %v %v; want it kept", fan, st, err)
	}
}
