//go:build unix

package python_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// backlogZeroListener listens on 127.0.0.1 with a backlog of 0 (closed
// when the test ends) and returns its port.
func backlogZeroListener(t *testing.T) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, _ := unix.Getsockname(fd)
	return sa.(*unix.SockaddrInet4).Port
}
