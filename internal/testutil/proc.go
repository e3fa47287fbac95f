package testutil

import (
	"testing"
	"time"
)

// ProcessCPU returns the CPU time (user + system) this process has used
// (0 where it cannot be read).
func ProcessCPU() time.Duration { return processCPU() }

// ChildrenCPU returns the CPU time of the child processes waited for (0
// where it cannot be read).
func ChildrenCPU() time.Duration { return childrenCPU() }

// Mkfifo makes a FIFO at path (mode 0600), skipping the test where there
// are none (Windows) and failing it when the FIFO cannot be made.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	mkfifo(t, path)
}

// Kill sends SIGKILL to the process pid (Windows: terminates it).
func Kill(pid int) error { return kill(pid) }

// Alive reports whether a process pid exists (signal 0).
func Alive(pid int) bool { return alive(pid) }

// SetRecvBuffer sets SO_RCVBUF of the socket fd (in a net.Dialer's
// Control, before the connect).
func SetRecvBuffer(fd uintptr, n int) error { return setRecvBuffer(fd, n) }
