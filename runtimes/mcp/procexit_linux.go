package mcp

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until p has exited, without reaping it (its Wait still
// does), and reports whether it saw the exit: false when p was reaped
// first or cannot be waited for.
func awaitExit(p *os.Process) bool {
	if p == nil {
		return false
	}
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err == nil
	}
}
