//go:build unix && !linux

package cloexec

import (
	"os"
	"strconv"
	"syscall"
)

// Stray marks every descriptor of the process above stderr close-on-exec.
// Call it before starting a child.
func Stray() {
	ents, err := os.ReadDir("/dev/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
