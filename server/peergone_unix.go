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
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	gone := true
	_ = raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, 0)
		if err == nil {
			gone = n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
		}
	})
	return gone
}
