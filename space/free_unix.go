//go:build linux || darwin || freebsd

package space

import (
	"math"
	"syscall"
)

// freeBytes is the space an unprivileged writer has left on dir's file
// system.
func freeBytes(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return statfsFree(&st)
}

// statfsFree is the free space of a statfs, unknown when it reports no
// blocks at all: a FUSE file system that does not implement statfs is
// answered with zeros (fuser's default), and its 0 free blocks refused
// every Put for the reserve on a disk with room.
func statfsFree(st *syscall.Statfs_t) (int64, bool) {
	if st.Blocks == 0 {
		return 0, false
	}
	return availBytes(st), true
}

// blocksBytes is n blocks of unit bytes, or the largest int64 when that
// is more (statfs counts blocks in a uint64: a file system answering
// "unlimited" as all ones overflowed into a negative free space, and
// every Put was refused for the reserve); none of no unit, or of a
// negative count (FreeBSD's int64 f_bavail, when the root reserve is in
// use).
func blocksBytes[N int64 | uint64](n N, unit int64) int64 {
	if n <= 0 || unit <= 0 {
		return 0
	}
	if uint64(n) > uint64(math.MaxInt64/unit) {
		return math.MaxInt64
	}
	return int64(n) * unit
}
