//go:build unix

package discovery

import (
	"os"
	"syscall"
)

// openNonblocking opens path read-only with O_NONBLOCK: opening a FIFO
// then returns at once instead of waiting for a writer. Reads of a regular
// file are not affected by the flag.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
