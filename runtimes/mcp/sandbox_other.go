//go:build !linux

package mcp

import (
	"errors"
	"os/exec"
)

// startSandboxed refuses to start a sandboxed server: the sandbox is
// Landlock and seccomp, Linux only.
func startSandboxed(*exec.Cmd, *Sandbox) error {
	return errors.New("not started: its sandbox needs Linux (Landlock and seccomp); remove sandbox: from its entry to run it unconfined")
}

// startHeld starts cmd: a server that outlives a host killed with SIGKILL
// is not prevented here (Pdeathsig is Linux's).
func startHeld(cmd *exec.Cmd, _ func() error) error { return cmd.Start() }
