//go:build unix

package python

import (
	"os"

	"golang.org/x/sys/unix"
)

// sendFD sends a duplicate of the socket fd over the broker socket pair
// (SCM_RIGHTS, with one byte).
func sendFD(broker *os.File, fd uintptr) error {
	return unix.Sendmsg(int(broker.Fd()), []byte{0}, unix.UnixRights(int(fd)), nil, 0)
}

// shutdownFD shuts the socket fd down both ways (every copy of it ends).
func shutdownFD(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_RDWR) }
