//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting (flock(2)): one
// writer per log.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// deleted reports whether f has no name left (its link count is 0).
func deleted(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Nlink == 0
}
