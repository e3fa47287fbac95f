package space

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFreeBytesUseFragmentSize: free space was bavail × f_bsize,
// but Linux counts blocks in f_frsize units; on a file system whose
// bsize is its I/O size (1 MiB on Docker Desktop's virtiofs, over 4 KiB
// blocks) the free space was 256 times too much and min_free_bytes never
// refused a write. It is bavail × f_frsize (f_bsize when frsize is 0).
func TestFreeBytesUseFragmentSize(t *testing.T) {
	if got := availBytes(&syscall.Statfs_t{Bavail: 100, Bsize: 1 << 20, Frsize: 4096}); got != 100*4096 {
		t.Errorf("virtiofs-like statfs: %d free, want %d", got, 100*4096)
	}
	if got := availBytes(&syscall.Statfs_t{Bavail: 100, Bsize: 4096}); got != 100*4096 {
		t.Errorf("statfs without frsize: %d free, want %d", got, 100*4096)
	}
}

// TestSpaceOnOtherFileSystem: a space folder linked to another file
// system is read through the link, but a Put, which writes its object in
// the store's .tmp folder and renames it into the space, failed with
// "rename: invalid cross-device link", naming nothing to do. It says
// the space is on another file system than the store, and what to do.
func TestSpaceOnOtherFileSystem(t *testing.T) {
	root := t.TempDir()
	other, err := os.MkdirTemp("/dev/shm", "space-probe-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	var a, b syscall.Stat_t
	if syscall.Stat(root, &a) != nil || syscall.Stat(other, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the file system of", root)
	}
	if err := os.Symlink(other, filepath.Join(root, "big")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("big", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), `space "big"`) || !strings.Contains(err.Error(), "another file system") {
		t.Errorf("Put into a space on another file system: %v, want it to say so", err)
	}
}
