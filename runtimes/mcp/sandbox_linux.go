//go:build linux

package mcp

import (
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/caps"
	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/seccomp"
)

// Sandboxed stdio servers.
//
// Landlock and seccomp confine a thread and what it starts, so each
// sandboxed server is started from a thread of its own, confined for that
// start and ended once the server has started: no_new_privs, no
// capabilities (even when the host runs as root), then Landlock (read and
// execute beneath SandboxSystemPaths, the command, its dir and read;
// write beneath write; with no network, no TCP bind or connect), then the
// seccomp filter the JS and Python workers get (socket(2) and connect(2)
// refused, or with network socket(2) refused for unix sockets only; no
// user namespaces; no kernel keyrings; no raising rlimits; no io_uring). Where a layer is missing the server is not started: a
// sandbox that was asked for is never quietly dropped.
//
// Each start is a Landlock domain of its own: the processes of one domain
// may signal and ptrace one another, and servers of the same sandbox
// (the same command and paths) were started from one thread kept for
// them, so one killed the other or read its memory with process_vm_readv
// (TestSandboxedServersDoNotReachEachOther).

// startSandboxed starts cmd confined by sb.
func startSandboxed(cmd *exec.Cmd, sb *Sandbox) error {
	rules := sandboxRules(cmd, sb)
	return startHeld(cmd, func() error {
		if err := confineSandbox(rules, sb.Network, len(sb.Write) == 0); err != nil {
			return fmt.Errorf("not started: its sandbox cannot be set up on this machine: %v (remove sandbox: from its entry to run it unconfined)", err)
		}
		return nil
	})
}

// startHeld starts cmd (after confine, if not nil, confined the thread)
// so that it dies with the host: SIGKILL when the thread that started it
// ends (Pdeathsig), and that thread, locked to the goroutine that starts
// it, ends only once the server has exited. A host killed with SIGKILL
// (the OOM killer, a crash, kill -9) closes no stdin and sends no
// SIGTERM, and a server that did not exit at the end of its stdin ran on
// for good. The processes the server itself started are not reached
// this way: they get the end of their stdin.
func startHeld(cmd *exec.Cmd, confine func() error) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	landlock.GoLocked(func() {
		if confine != nil {
			if err := confine(); err != nil {
				done <- err
				return
			}
		}
		err := cmd.Start()
		done <- err
		if err == nil {
			awaitExit(cmd.Process)
		}
	})
	return <-done
}

// sandboxRules are the Landlock rules of a server started as cmd.
func sandboxRules(cmd *exec.Cmd, sb *Sandbox) []landlock.Rule {
	var rules []landlock.Rule
	for _, p := range SandboxSystemPaths {
		rules = append(rules, landlock.Rule{Path: p, Write: p == "/dev/null"})
	}
	rules = append(rules, landlock.Rule{Path: cmd.Path})
	if cmd.Dir != "" {
		rules = append(rules, landlock.Rule{Path: cmd.Dir})
	}
	for _, p := range sb.Read {
		rules = append(rules, landlock.Rule{Path: p})
	}
	for _, p := range sb.Write {
		rules = append(rules, landlock.Rule{Path: p, Write: true})
	}
	return rules
}

// confineSandbox confines the calling thread (locked to it for good); a
// server that writes no file (readOnly) may not change a file's mode,
// owner, times or extended attributes either, which Landlock leaves alone.
func confineSandbox(rules []landlock.Rule, network, readOnly bool) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	// A host running as root would hand the server every capability it
	// has (settimeofday, reboot, init_module, sethostname), which neither
	// Landlock nor the filter covers: it starts with none, as the Python
	// and JS workers do.
	if err := caps.DropForExec(); err != nil {
		return fmt.Errorf("dropping capabilities: %v", err)
	}
	v, err := landlock.Version()
	if err != nil {
		return fmt.Errorf("Landlock: %v", err)
	}
	if !network && v < 4 {
		return fmt.Errorf("Landlock ABI %d cannot refuse TCP (4 can); seccomp refuses sockets all the same, but a sandbox without network needs both", v)
	}
	if err := landlock.RestrictThread(v, rules, !network); err != nil {
		return err
	}
	return seccomp.InstallThread(network, readOnly)
}
