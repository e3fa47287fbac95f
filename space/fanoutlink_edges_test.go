package space

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLinkedFanOutFolderListedAndCounted: a space's fan-out folder (the
// xx of xx/…) moved elsewhere on the store's file system and linked back
// was read through the link by Get (tools, space get), but List left its
// objects out (space list printed nothing, MCP clients were offered
// none) and the quota did not count them, so the space took objects past
// it. List and the quota follow the link, as Get does and as they follow
// a linked space folder.
func TestLinkedFanOutFolderListedAndCounted(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "store")
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Put("docs", []byte("0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	hex := strings.TrimPrefix(id, IDPrefix)
	fan := filepath.Join(root, "docs", hex[:2])
	moved := filepath.Join(base, "moved")
	if err := os.Rename(fan, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, fan); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if _, err := s.Get("docs", id); err != nil {
		t.Fatalf("Get through the linked fan-out folder: %v", err)
	}
	ids, err := s.List("docs")
	if err != nil || !slices.Contains(ids, id) {
		t.Fatalf("List of docs = %v, %v; want %s, which Get reads", ids, err, id)
	}
	// A restarted host with a quota of 15 bytes: the 10 are counted.
	q, err := Open(root, WithMaxSpaceBytes(15))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Put("docs", []byte("abcdefgh")); !errors.Is(err, ErrFull) {
		t.Fatalf("8 bytes more into a space holding 10 under a quota of 15: %v; want ErrFull", err)
	}
}
