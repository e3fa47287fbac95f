//go:build unix

package pipe

import "syscall"

// readFD is read(2) on the raw descriptor of the pipe.
func readFD(fd uintptr, p []byte) (int, error) { return syscall.Read(int(fd), p) }
