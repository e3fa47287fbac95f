//go:build linux

package python

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// connEnded reports whether conn's TCP connection has ended both ways
// (TIME_WAIT, CLOSE, LAST_ACK, CLOSING): no byte can pass on it any more,
// whoever holds a copy.
func connEnded(conn *net.TCPConn) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return true
	}
	var state uint8
	var ierr error
	if cerr := raw.Control(func(fd uintptr) {
		var info *unix.TCPInfo
		if info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); ierr == nil {
			state = info.State
		}
	}); cerr != nil || ierr != nil {
		return false
	}
	switch state {
	case unix.BPF_TCP_TIME_WAIT, unix.BPF_TCP_CLOSE, unix.BPF_TCP_LAST_ACK, unix.BPF_TCP_CLOSING:
		return true
	}
	return false
}

// socketPair returns the two ends of a unix stream socket pair (both
// close-on-exec; the worker's end is passed as an inherited fd).
func socketPair() (host, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "python-broker"), os.NewFile(uintptr(fds[1]), "python-broker-worker"), nil
}
