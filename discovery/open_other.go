//go:build !unix

package discovery

import "os"

// openNonblocking opens path read-only (openRegular has checked that it is
// a regular file; there are no FIFOs to block on here).
func openNonblocking(path string) (*os.File, error) { return os.Open(path) }
