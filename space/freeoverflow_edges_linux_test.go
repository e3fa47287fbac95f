package space

import (
	"math"
	"syscall"
	"testing"
)

// TestFreeBytesBeyondInt64: statfs's free blocks are a uint64, and a
// file system reporting more bytes than an int64 holds (a FUSE or network
// file system answering "unlimited" as all ones, or exabytes in blocks
// of 4 KiB) overflowed bavail × frsize into a negative free space: every
// Put was refused with "would leave 0 bytes free on the store's disk,
// below the reserve" (limits.min_free_bytes). The free space is then the
// largest int64; a statfs of no block size at all is none.
func TestFreeBytesBeyondInt64(t *testing.T) {
	for _, st := range []syscall.Statfs_t{
		{Bavail: math.MaxUint64, Bsize: 4096, Frsize: 4096},
		{Bavail: 1 << 62, Bsize: 4096, Frsize: 4096},
		{Bavail: 1 << 52, Bsize: 1 << 20},
	} {
		if got := availBytes(&st); got != math.MaxInt64 {
			t.Errorf("statfs bavail %d × frsize %d, bsize %d: %d bytes free, want %d", st.Bavail, st.Frsize, st.Bsize, got, int64(math.MaxInt64))
		}
	}
	if got := availBytes(&syscall.Statfs_t{Bavail: 1 << 40, Bsize: 4096, Frsize: 4096}); got != 1<<52 {
		t.Errorf("4 PiB free read as %d bytes", got)
	}
	if got := availBytes(&syscall.Statfs_t{Bavail: 100}); got != 0 {
		t.Errorf("statfs without a block size: %d bytes free, want 0", got)
	}
}
