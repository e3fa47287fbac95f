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
	gone, known := hungUp(conn)
	return gone || !known
}

// hungUp reports whether the peer of conn closed its end (POLLHUP), and
// whether that could be told at all (known false: a conn without a file
// descriptor, such as net.Pipe's).
func hungUp(conn net.Conn) (gone, known bool) {
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
			known = true
			gone = n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
		}
	})
	return gone, known
}
