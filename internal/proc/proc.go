// Package proc reads this process's child processes from /proc (Linux;
// elsewhere there are none to read).
package proc

import (
	"os"
	"strconv"
	"strings"
)

// Child is a child process as /proc/PID/stat describes it.
type Child struct {
	PID, PGRP int
	// Zombie: it has ended and is not yet reaped (its pid is not reused
	// meanwhile).
	Zombie bool
}

// Children lists the processes whose parent is this one, read from /proc
// (nil where there is no /proc).
func Children() []Child {
	self := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Child
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and ")".
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		pgrp, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || ppid != self {
			continue
		}
		out = append(out, Child{PID: pid, PGRP: pgrp, Zombie: f[0] == "Z"})
	}
	return out
}
