//go:build unix

package testutil

import (
	"syscall"
	"testing"
	"time"
)

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func processCPU() time.Duration  { return rusage(syscall.RUSAGE_SELF) }
func childrenCPU() time.Duration { return rusage(syscall.RUSAGE_CHILDREN) }

func mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

func kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func setRecvBuffer(fd uintptr, n int) error {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
