package space

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDeleteOfLinkedObjectKeepsQuota: Delete took the size of what it
// removed from its space's usage by Lstat, so an object file that is a
// link (a store deduplicated by hand, which Get, List and Size follow)
// or an empty folder where an object should be, neither of which the
// quota counts, took the link's or the folder's own size off: the
// space's usage fell below what its objects hold and it took objects
// past its quota (60 + 50 + 50 bytes under a quota of 100). Only a
// regular file's size is given back, as only regular files are counted.
func TestDeleteOfLinkedObjectKeepsQuota(t *testing.T) {
	for _, kind := range []string{"link", "folder"} {
		t.Run(kind, func(t *testing.T) {
			root := t.TempDir()
			s, err := Open(root, WithMaxSpaceBytes(100))
			if err != nil {
				t.Fatal(err)
			}
			shared, err := s.Put("a", []byte("shared content"))
			if err != nil {
				t.Fatal(err)
			}
			hex := shared[len(IDPrefix):]
			p := filepath.Join(root, "q", hex[:2], hex[2:])
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if kind == "link" {
				if err := os.Symlink(filepath.Join("..", "..", "a", hex[:2], hex[2:]), p); err != nil {
					t.Skip("no symlinks here:", err)
				}
			} else if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Put("q", bytes.Repeat([]byte("a"), 60)); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete("q", shared); err != nil {
				t.Fatalf("Delete of the %s: %v", kind, err)
			}
			if _, err := s.Put("q", bytes.Repeat([]byte("b"), 40)); err != nil {
				t.Fatalf("60 + 40 bytes under a quota of 100: %v", err)
			}
			if _, err := s.Put("q", bytes.Repeat([]byte("c"), 50)); !errors.Is(err, ErrFull) {
				t.Fatalf("60 + 40 + 50 bytes under a quota of 100: %v, want ErrFull", err)
			}
			if n, err := s.spaceBytes("q"); err != nil || n != 100 {
				t.Fatalf("space q holds %d bytes (%v), want 100", n, err)
			}
		})
	}
}
