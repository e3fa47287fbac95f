//go:build unix

package js

import "golang.org/x/sys/unix"

// errNoProcessIsolation says why worker processes cannot run here: nil.
var errNoProcessIsolation error

// stdinReadyOrUnpollable polls stdin once without waiting: true when it
// is readable (or hung up), or when it cannot be polled.
func stdinReadyOrUnpollable() bool {
	fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return n != 0 || (err != nil && err != unix.EINTR)
}
