//go:build linux

package python

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/landlock"
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
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			l.SeccompErr = "prctl(PR_SET_NO_NEW_PRIVS): " + err.Error()
		} else if err := installSeccomp(false); err != nil {
			l.SeccompErr = err.Error()
		} else {
			l.Seccomp = true
		}
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			l.NetNSErr = "unshare(CLONE_NEWNET): " + err.Error() + " (needs CAP_SYS_ADMIN or user namespaces)"
		} else {
			l.NetNS = true
		}
	}()
	<-done
	return l
}

// BPF instruction classes used by the filter.
const (
	bpfLdWAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K

	secRetAllow = 0x7fff0000
	secRetErrno = 0x00050000

	auditArchX86_64  = 0xc000003e
	auditArchAArch64 = 0xc00000b7
	x32SyscallBit    = 0x40000000
)

// seccompProgram builds the worker's filter: other architectures' syscalls
// (and x32) fail with EPERM; socket(2) fails with EACCES unless network is
// allowed; setrlimit, prlimit64 with a new limit and io_uring_setup fail
// with EPERM; everything else is allowed.
func seccompProgram(network bool) ([]unix.SockFilter, error) {
	var arch uint32
	x32 := uint32(0xffffffff) // never reached on arm64
	switch runtime.GOARCH {
	case "amd64":
		arch, x32 = auditArchX86_64, x32SyscallBit
	case "arm64":
		arch = auditArchAArch64
	default:
		return nil, fmt.Errorf("no seccomp filter for GOARCH %s", runtime.GOARCH)
	}
	socketRet := uint32(secRetErrno | uint32(unix.EACCES))
	if network {
		socketRet = secRetAllow
	}
	eperm := uint32(secRetErrno | uint32(unix.EPERM))
	st := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jmp := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	return []unix.SockFilter{
		/* 0 */ st(bpfLdWAbs, 4), // arch
		/* 1 */ jmp(bpfJeqK, arch, 1, 0),
		/* 2 */ st(bpfRetK, eperm),
		/* 3 */ st(bpfLdWAbs, 0), // nr
		/* 4 */ jmp(bpfJgeK, x32, 0, 1),
		/* 5 */ st(bpfRetK, eperm),
		/* 6 */ jmp(bpfJeqK, unix.SYS_SOCKET, 0, 1),
		/* 7 */ st(bpfRetK, socketRet),
		/* 8 */ jmp(bpfJeqK, unix.SYS_SETRLIMIT, 0, 1),
		/* 9 */ st(bpfRetK, eperm),
		/* 10 */ jmp(bpfJeqK, unix.SYS_IO_URING_SETUP, 0, 1),
		/* 11 */ st(bpfRetK, eperm),
		/* 12 */ jmp(bpfJeqK, unix.SYS_PRLIMIT64, 1, 0),
		/* 13 */ st(bpfRetK, secRetAllow),
		/* 14 */ st(bpfLdWAbs, 16+2*8), // args[2] low word: the new limit
		/* 15 */ jmp(bpfJeqK, 0, 0, 3),
		/* 16 */ st(bpfLdWAbs, 16+2*8+4), // args[2] high word
		/* 17 */ jmp(bpfJeqK, 0, 0, 1),
		/* 18 */ st(bpfRetK, secRetAllow),
		/* 19 */ st(bpfRetK, eperm),
	}, nil
}

// installSeccomp installs the filter on the calling thread (no TSYNC).
// no_new_privs must be set already.
func installSeccomp(network bool) error {
	prog, err := seccompProgram(network)
	if err != nil {
		return err
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fp)), 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECCOMP): %v", err)
	}
	return nil
}

// spawn starts the worker process as s says, sandboxed by every layer s.layers
// offers, in its own process group. Resource limits are applied afterwards
// by limit (before the worker's start gate opens).
func spawn(s spawnSpec) (*os.Process, error) {
	sys := &syscall.SysProcAttr{Setpgid: true}
	attr := &os.ProcAttr{Dir: s.dir, Env: s.env, Files: s.files, Sys: sys}
	if s.layers.Disabled {
		return os.StartProcess(s.argv[0], s.argv, attr)
	}
	if !s.network && s.layers.NetNS {
		sys.Cloneflags = syscall.CLONE_NEWNET
	}
	type res struct {
		p   *os.Process
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the confined thread dies with this goroutine
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			ch <- res{err: fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %v", err)}
			return
		}
		if s.layers.Landlock > 0 {
			if err := landlock.RestrictThread(s.layers.Landlock, landlockRules(s.read), !s.network); err != nil {
				ch <- res{err: fmt.Errorf("sandbox: %v", err)}
				return
			}
		}
		if s.layers.Seccomp {
			if err := installSeccomp(s.network); err != nil {
				ch <- res{err: fmt.Errorf("sandbox: %v", err)}
				return
			}
		}
		p, err := os.StartProcess(s.argv[0], s.argv, attr)
		ch <- res{p, err}
	}()
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

// killGroup kills the worker's whole process group.
func killGroup(pid int) {
	if pid > 0 {
		_ = unix.Kill(-pid, unix.SIGKILL)
	}
}

// seccompProgramFor exposes the filter to tests.
func seccompProgramFor(network bool) ([]unix.SockFilter, error) { return seccompProgram(network) }

// landlockRules converts the worker's readable paths to Landlock rules.
func landlockRules(read []roPath) []landlock.Rule {
	rules := make([]landlock.Rule, len(read))
	for i, r := range read {
		rules[i] = landlock.Rule{Path: r.path, Write: r.write}
	}
	return rules
}
