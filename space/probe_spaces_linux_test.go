package space

import (
	"syscall"
	"testing"
)

// TestProbeFreeBytesUseFragmentSize: free space was bavail × f_bsize,
// but Linux counts blocks in f_frsize units; on a file system whose
// bsize is its I/O size (1 MiB on Docker Desktop's virtiofs, over 4 KiB
// blocks) the free space was 256 times too much and min_free_bytes never
// refused a write. It is bavail × f_frsize (f_bsize when frsize is 0).
func TestProbeFreeBytesUseFragmentSize(t *testing.T) {
	if got := availBytes(&syscall.Statfs_t{Bavail: 100, Bsize: 1 << 20, Frsize: 4096}); got != 100*4096 {
		t.Errorf("virtiofs-like statfs: %d free, want %d", got, 100*4096)
	}
	if got := availBytes(&syscall.Statfs_t{Bavail: 100, Bsize: 4096}); got != 100*4096 {
		t.Errorf("statfs without frsize: %d free, want %d", got, 100*4096)
	}
}
