//go:build linux

package python

import (
	"net"

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
