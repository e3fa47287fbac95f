//go:build unix

package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unixSocketUnsupported says why this platform has no unix socket
// transport: nil here.
func unixSocketUnsupported() error { return nil }

// peerGone reports whether the peer of conn closed its end (POLLHUP), as
// opposed to shutting down only its write side; true when it cannot
// tell.
func peerGone(conn net.Conn) bool {
	gone, known := pollHangUp(conn)
	return gone || !known
}

// peerHungUp reports whether the peer of conn is known to have closed
// its end; false when it cannot tell (a net.Pipe).
func peerHungUp(conn net.Conn) bool {
	gone, known := pollHangUp(conn)
	return gone && known
}

// pollHangUp polls conn for POLLHUP; known is false when it cannot.
func pollHangUp(conn net.Conn) (gone, known bool) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false, false
	}
	_ = raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, 0)
		if err == nil {
			gone, known = n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0, true
		}
	})
	return gone, known
}
