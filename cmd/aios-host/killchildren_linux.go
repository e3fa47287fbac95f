package main

import (
	"syscall"

	"github.com/aios-host/aios-host/internal/proc"
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
	live := 0
	for _, c := range proc.Children() {
		if !c.Zombie {
			live++
		}
		if c.PGRP == c.PID {
			_ = syscall.Kill(-c.PID, syscall.SIGKILL)
		} else {
			_ = syscall.Kill(c.PID, syscall.SIGKILL)
		}
	}
	return live
}
