//go:build !linux

package audit

import "os"

// dropCache is page-cache advice (see dropcache_linux.go); elsewhere it
// does nothing.
func dropCache(*os.File, int64, int64) {}
