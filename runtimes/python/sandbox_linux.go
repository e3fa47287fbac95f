//go:build linux

package python

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/caps"
	"github.com/aios-host/aios-host/internal/cloexec"
	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/seccomp"
)

// The sandbox is applied to a dedicated OS thread, and the worker is forked
// from that thread: a child inherits the forking thread's no_new_privs flag,
// Landlock domain and seccomp filter, so the host's other threads stay
// unconfined and no re-exec of the host binary is needed. The thread is
// locked to its goroutine and never unlocked, so the Go runtime destroys it
// when the goroutine returns (and creates new threads from a clean template
// thread meanwhile). Resource limits are per process, so they are set on the
// child with prlimit(2) before the worker is let through its start gate.

// detectLayers probes every layer, on a throwaway thread for the ones that
// change thread state.
func detectLayers() Layers {
	var l Layers
	if v, err := landlock.Version(); err != nil {
		l.LandlockErr = err.Error()
	} else {
		l.Landlock = v
	}
	var lim unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_AS, nil, &lim); err != nil {
		l.RlimitsErr = "prlimit: " + err.Error()
	} else {
		l.Rlimits = true
	}
	if c, err := hostCgroups(); err != nil {
		l.CgroupErr = err.Error()
	} else {
		l.Cgroup = c.version()
	}
	done := make(chan struct{})
	landlock.GoLocked(func() { // a thread of its own, never the main one; it dies with this function
		defer close(done)
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			l.SeccompErr = "prctl(PR_SET_NO_NEW_PRIVS): " + err.Error()
		} else if err := seccomp.InstallThread(false, true); err != nil {
			l.SeccompErr = err.Error()
		} else {
			l.Seccomp = true
		}
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			l.NetNSErr = "unshare(CLONE_NEWNET): " + err.Error() + " (needs CAP_SYS_ADMIN or user namespaces)"
		} else {
			l.NetNS = true
		}
		// The thread's later children would start a new PID namespace;
		// the thread ends here, so nothing else is affected.
		if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
			l.PIDNSErr = "unshare(CLONE_NEWPID): " + err.Error() + " (needs CAP_SYS_ADMIN or user namespaces)"
		} else {
			l.PIDNS = true
		}
	})
	<-done
	return l
}

// spawn starts the worker process as s says, sandboxed by every layer s.layers
// offers, in its own process group. Resource limits are applied afterwards
// by limit (before the worker's start gate opens).
func spawn(s spawnSpec) (*os.Process, error) {
	// A descriptor the host inherited without close-on-exec passed to
	// every worker, read past Landlock, which checks only at open
	// (TestWorkerInheritsNoStrayFD; internal/cloexec).
	cloexec.Stray()
	sys := &syscall.SysProcAttr{Setpgid: true}
	attr := &os.ProcAttr{Dir: s.dir, Env: s.env, Files: s.files, Sys: sys}
	if s.layers.Disabled {
		return os.StartProcess(s.argv[0], s.argv, attr)
	}
	if !s.network && s.layers.NetNS {
		sys.Cloneflags = syscall.CLONE_NEWNET
	}
	if s.layers.PIDNS {
		// The worker is its namespace's init: when it exits (or is
		// killed) the kernel kills every process a tool forked, even
		// one that left the process group with setsid.
		sys.Cloneflags |= syscall.CLONE_NEWPID
	}
	type res struct {
		p   *os.Process
		err error
	}
	ch := make(chan res, 1)
	landlock.GoLocked(func() { // the confined thread, never the main one, dies with this function
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			ch <- res{err: fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %v", err)}
			return
		}
		// A host running as root would hand the worker all its
		// capabilities (perf_event_open, sethostname, reboot, ...).
		if err := caps.DropForExec(); err != nil {
			ch <- res{err: fmt.Errorf("sandbox: dropping capabilities: %v", err)}
			return
		}
		if s.layers.Landlock > 0 {
			if err := landlock.RestrictThread(s.layers.Landlock, landlockRules(s.read), !s.network); err != nil {
				ch <- res{err: fmt.Errorf("sandbox: %v", err)}
				return
			}
		}
		if s.layers.Seccomp {
			var rules []seccomp.Rule
			if !s.layers.PIDNS {
				// The worker sees the host's processes: it may
				// change the scheduling of its own only (Landlock's
				// scopes cover signals, not nice values, CPU
				// affinity or scheduling policies;
				// TestNoSchedulingOfOtherProcesses).
				rules = append(rules, seccomp.OwnScheduling)
			}
			if err := seccomp.InstallThread(s.network, true, rules...); err != nil {
				ch <- res{err: fmt.Errorf("sandbox: %v", err)}
				return
			}
		}
		p, err := os.StartProcess(s.argv[0], s.argv, attr)
		ch <- res{p, err}
	})
	r := <-ch
	return r.p, r.err
}

// limit sets the worker's resource limits (no core dumps; memory and CPU
// as configured).
func limit(pid int, s spawnSpec) error {
	if s.layers.Disabled || !s.layers.Rlimits {
		return nil
	}
	set := func(res int, v uint64, name string) error {
		if err := unix.Prlimit(pid, res, &unix.Rlimit{Cur: v, Max: v}, nil); err != nil {
			return fmt.Errorf("sandbox: prlimit %s=%d on worker %d: %v", name, v, pid, err)
		}
		return nil
	}
	if err := set(unix.RLIMIT_CORE, 0, "RLIMIT_CORE"); err != nil {
		return err
	}
	if s.memoryBytes > 0 {
		if err := set(unix.RLIMIT_AS, s.memoryBytes, "RLIMIT_AS"); err != nil {
			return err
		}
	}
	if s.cpuSeconds > 0 {
		// The soft limit sends SIGXCPU (the worker dies and is replaced);
		// the hard limit one second later is SIGKILL.
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: s.cpuSeconds, Max: s.cpuSeconds + 1}, nil); err != nil {
			return fmt.Errorf("sandbox: prlimit RLIMIT_CPU on worker %d: %v", pid, err)
		}
	}
	return nil
}

// newCgroup makes the control group of a worker (nil when workers get
// none).
func newCgroup(s spawnSpec) (*workerCgroup, error) {
	if s.layers.Disabled || s.layers.Cgroup == "" {
		return nil, nil
	}
	c, err := hostCgroups()
	if err != nil {
		return nil, err
	}
	return c.newWorker(cgLimits{tasks: s.tasks, memoryBytes: s.memoryBytes, cpus: s.cpus})
}

// killGroup kills the worker's whole process group.
func killGroup(pid int) {
	if pid > 0 {
		_ = unix.Kill(-pid, unix.SIGKILL)
	}
}

// askStack asks the worker for its stack (SIGUSR2: see worker.importAt),
// the stack of its main thread, which imports and runs the calls: a
// signal to the process reaches another thread when the main thread
// blocks it, and faulthandler wrote that thread's stack, naming its line
// for the call's (TestDeadlineLineNotFromAnotherThread). Sent to the
// thread, it waits there while blocked and no stack comes.
func askStack(pid int) error { return unix.Tgkill(pid, pid, unix.SIGUSR2) }

// landlockRules converts the worker's readable paths to Landlock rules.
func landlockRules(read []roPath) []landlock.Rule {
	rules := make([]landlock.Rule, len(read))
	for i, r := range read {
		rules[i] = landlock.Rule{Path: r.path, Write: r.write}
	}
	return rules
}
