package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// killChildren sends SIGKILL to every child process of this one (Python
// and JS workers, MCP servers, the JS bundler), to the child's process
// group when it leads one (an MCP server and what it started, npx →
// node; a Python worker and what its tools forked): on a forced exit
// (a second SIGINT or SIGTERM during the shutdown) the shutdown that
// would have ended them is abandoned, and a server that ignores the end
// of its stdin and SIGTERM, or a worker busy in a tool, outlived the
// host. The children are found in /proc: those whose parent is this
// process (not yet reaped, so their pids are not reused). It returns how
// many of them had not ended (were no zombie).
func killChildren() int {
	self := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	live := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
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
		if f[0] != "Z" {
			live++
		}
		if pgrp == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		} else {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return live
}
