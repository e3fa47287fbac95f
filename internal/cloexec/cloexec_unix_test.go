//go:build unix

package cloexec

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestStrayMarked(t *testing.T) {
	fd, err := unix.Open(filepath.Join(t.TempDir(), "f"), unix.O_RDWR|unix.O_CREAT, 0o600) // no O_CLOEXEC, as one inherited
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || fl&unix.FD_CLOEXEC != 0 {
		t.Fatalf("the test's descriptor: flags %d, %v", fl, err)
	}
	Stray()
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || fl&unix.FD_CLOEXEC == 0 {
		t.Fatalf("descriptor %d not marked close-on-exec: flags %d, %v", fd, fl, err)
	}
	for _, std := range []int{0, 1, 2} {
		if fl, err := unix.FcntlInt(uintptr(std), unix.F_GETFD, 0); err == nil && fl&unix.FD_CLOEXEC != 0 {
			t.Errorf("standard descriptor %d was marked", std)
		}
	}
}
