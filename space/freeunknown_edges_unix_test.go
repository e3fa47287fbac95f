//go:build linux || darwin || freebsd

package space

import (
	"syscall"
	"testing"
)

// TestFreeBytesOfSizelessFileSystemUnknown: a file system whose statfs
// says it has no blocks at all reports no sizes (a FUSE file system that
// does not implement statfs, answered with zeros by its library, as
// fuser's default does), but its 0 free blocks were read as a full disk:
// every Put was refused for limits.min_free_bytes, "would leave 0 bytes
// free on the store's disk", on a file system with room. Its free space
// is unknown, as when statfs fails: the reserve is not checked.
func TestFreeBytesOfSizelessFileSystemUnknown(t *testing.T) {
	if free, ok := statfsFree(&syscall.Statfs_t{Bsize: 512}); ok {
		t.Errorf("statfs of no blocks: %d bytes free, want unknown", free)
	}
	if free, ok := statfsFree(&syscall.Statfs_t{Blocks: 1000, Bsize: 4096}); !ok || free != 0 {
		t.Errorf("a full disk: %d bytes free (known %v), want 0", free, ok)
	}
}
