//go:build unix && !linux

package python

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// socketPair returns the two ends of a unix stream socket pair (both
// close-on-exec; the worker's end is passed as an inherited fd). Without
// SOCK_CLOEXEC (macOS) the flag is set under syscall.ForkLock, as the
// standard library does, so no process forked meanwhile inherits them.
func socketPair() (host, child *os.File, err error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "python-broker"), os.NewFile(uintptr(fds[1]), "python-broker-worker"), nil
}
