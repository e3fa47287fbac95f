//go:build darwin || freebsd

package space

import "syscall"

// availBytes is the free space statfs reports to an unprivileged writer:
// here f_bsize is the fundamental block size, the unit of f_bavail.
func availBytes(st *syscall.Statfs_t) int64 {
	return blocksBytes(st.Bavail, int64(st.Bsize))
}
