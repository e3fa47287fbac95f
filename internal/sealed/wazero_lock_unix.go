//go:build unix

package sealed

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// wazeroLockName is the advisory lock file of a wazero cache directory:
// compilations in progress hold it shared, CheckWazero exclusive while it
// removes unsealed entries.
const wazeroLockName = "wazero.lock"

func openLock(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, wazeroLockName), os.O_RDWR|os.O_CREATE, 0o600)
}

// lockShared holds dir's lock file shared until unlock is called; when
// it cannot (no lock file, no flock), unlock does nothing.
func lockShared(dir string) (unlock func()) {
	f, err := openLock(dir)
	if err != nil {
		return func() {}
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() } // closing releases the lock
}

// tryLockExclusive takes dir's lock file exclusive without waiting: ok
// is false when another compilation holds it; when there is no lock to
// take (no lock file, no flock), ok is true.
func tryLockExclusive(dir string) (unlock func(), ok bool) {
	f, err := openLock(dir)
	if err != nil {
		return func() {}, true
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return func() { f.Close() }, true
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		f.Close()
		return nil, false
	default:
		f.Close()
		return func() {}, true
	}
}

// inode returns fi's inode number (0 when unknown).
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // not uint64 everywhere
	}
	return 0
}
