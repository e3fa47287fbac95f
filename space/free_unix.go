//go:build linux || darwin || freebsd

package space

import "syscall"

// freeBytes is the space an unprivileged writer has left on dir's file
// system.
func freeBytes(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return availBytes(&st), true
}
