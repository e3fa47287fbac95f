//go:build !linux

package mcp

import "os"

// awaitExit is not built here: a server that exits while a process it
// started holds its stdout ends its session only when that stdout ends.
func awaitExit(*os.Process) bool { return false }
