//go:build unix

package python

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestPortabilitySocketPairCloseOnExec: both ends of the broker's
// socket pair are close-on-exec (the worker's end reaches it only as an
// inherited ExtraFiles fd), and they are connected to each other.
func TestPortabilitySocketPairCloseOnExec(t *testing.T) {
	h, c, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	defer c.Close()
	for _, f := range []interface{ Fd() uintptr }{h, c} {
		fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fl&unix.FD_CLOEXEC == 0 {
			t.Errorf("fd %d: FD_CLOEXEC not set", f.Fd())
		}
	}
	if _, err := h.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if n, err := c.Read(b); err != nil || n != 1 || b[0] != 'x' {
		t.Errorf("read %d %q %v; want the byte written at the other end", n, b[:n], err)
	}
}
