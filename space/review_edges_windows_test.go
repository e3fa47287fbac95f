package space

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// TestWindowsDiskFullIsErrFull: a Put that finds the disk full is
// ErrFull (TestPutDiskFullIsErrFull), but only ENOSPC and EDQUOT were
// recognised, which Windows never returns (its syscall package invents
// them): a full disk there is ERROR_DISK_FULL or ERROR_HANDLE_DISK_FULL,
// and was a host error. (Vetted with GOOS=windows; the tests do not run
// on Windows here.)
func TestWindowsDiskFullIsErrFull(t *testing.T) {
	for _, errno := range []syscall.Errno{112, 39} { // ERROR_DISK_FULL, ERROR_HANDLE_DISK_FULL
		s := &Store{root: `C:\data\spaces`}
		err := s.putError("docs", 12, "write object", &fs.PathError{Op: "write", Path: `C:\data\spaces\.tmp\put-1`, Err: errno})
		if !errors.Is(err, ErrFull) {
			t.Errorf("Windows error %d: %v, want ErrFull", errno, err)
		}
	}
}
