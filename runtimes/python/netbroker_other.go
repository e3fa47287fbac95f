//go:build !linux

package python

import "net"

// connEnded: without TCP_INFO the host keeps its copy until the call ends.
func connEnded(*net.TCPConn) bool { return false }
