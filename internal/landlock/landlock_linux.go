//go:build linux

// Package landlock restricts a thread (and the processes it then starts)
// to a set of paths with Linux Landlock. The Python workers' sandbox and
// the JS worker processes use it.
package landlock

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Rule lets a restricted thread read (and execute from) Path, a file or a
// folder and what is beneath it; Write also lets it write (and truncate) a
// file, or make, write, rename and remove files and folders beneath a
// folder. Rights the running kernel's Landlock does not know are dropped.
type Rule struct {
	Path  string
	Write bool
}

// Landlock filesystem access rights (linux/landlock.h).
const (
	llExecute    = 1 << 0
	llWriteFile  = 1 << 1
	llReadFile   = 1 << 2
	llReadDir    = 1 << 3
	llRemoveDir  = 1 << 4
	llRemoveFile = 1 << 5
	llMakeDir    = 1 << 7
	llMakeReg    = 1 << 8
	llMakeSym    = 1 << 12
	llRefer      = 1 << 13 // ABI >= 2
	llTruncate   = 1 << 14 // ABI >= 3
	llIoctlDev   = 1 << 15

	llRulePathBeneath   = 1
	llCreateVersionFlag = 1 << 0

	llNetBindTCP    = 1 << 0
	llNetConnectTCP = 1 << 1

	// Scopes (ABI >= 6): a restricted process may not send signals to,
	// nor connect to the abstract unix sockets of, processes outside its
	// Landlock domain.
	llScopeAbstractUnix = 1 << 0
	llScopeSignal       = 1 << 1
)

// handledFS returns every filesystem right the given Landlock ABI knows.
func handledFS(abiVersion int) uint64 {
	h := uint64(1<<13 - 1) // v1: EXECUTE .. MAKE_SYM
	if abiVersion >= 2 {
		h |= 1 << 13 // REFER
	}
	if abiVersion >= 3 {
		h |= 1 << 14 // TRUNCATE
	}
	if abiVersion >= 5 {
		h |= llIoctlDev
	}
	return h
}

type llRulesetAttr struct {
	fs     uint64
	net    uint64
	scoped uint64
}

type llPathBeneath struct {
	allowed  uint64
	parentFd int32
	_        [4]byte // the kernel reads the packed 12 bytes
}

// Version returns the kernel's Landlock ABI version, or why there is none.
func Version() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, llCreateVersionFlag)
	if e != 0 {
		switch e {
		case unix.ENOSYS:
			return 0, errors.New("the kernel has no Landlock (ENOSYS)")
		case unix.EOPNOTSUPP:
			return 0, errors.New("Landlock is disabled at boot (EOPNOTSUPP; add landlock to the lsm= kernel parameter)")
		}
		return 0, fmt.Errorf("landlock_create_ruleset: %v", e)
	}
	return int(v), nil
}

// RestrictThread restricts the calling thread, and the processes it starts
// from now on, to reading (and executing from) the rules' paths, and
// writing where a rule says so; with noNet and ABI >= 4 it also denies TCP
// bind and connect. With ABI >= 6 it also scopes signals and abstract
// unix sockets to the domain: a restricted process cannot kill the host or
// any other process outside it (threads of one process may still signal
// each other). It needs no_new_privs (or CAP_SYS_ADMIN). A Landlock
// domain can only be narrowed: lock the thread to its goroutine for good.
func RestrictThread(version int, rules []Rule, noNet bool) error {
	attr := llRulesetAttr{fs: handledFS(version)}
	size := unsafe.Sizeof(attr.fs)
	if noNet && version >= 4 {
		attr.net = llNetBindTCP | llNetConnectTCP
		size = unsafe.Offsetof(attr.scoped)
	}
	if version >= 6 {
		attr.scoped = llScopeAbstractUnix | llScopeSignal
		size = unsafe.Sizeof(attr)
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %v", e)
	}
	defer unix.Close(int(fd))
	for _, r := range rules {
		pfd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // absent paths need no rule
		}
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			unix.Close(pfd)
			continue
		}
		allowed := uint64(llExecute | llReadFile)
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			allowed |= llReadDir
			if r.Write {
				// Write, make, rename into and remove files and folders
				// beneath it (no device nodes, sockets or FIFOs).
				allowed |= llWriteFile | llRemoveDir | llRemoveFile | llMakeDir | llMakeReg | llMakeSym | llRefer | llTruncate
			}
		} else if r.Write {
			allowed |= llWriteFile | llTruncate
			if version >= 5 {
				allowed |= llIoctlDev
			}
		}
		allowed &= attr.fs
		pb := llPathBeneath{allowed: allowed, parentFd: int32(pfd)}
		_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, llRulePathBeneath, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		unix.Close(pfd)
		if e != 0 {
			return fmt.Errorf("landlock_add_rule %s: %v", r.Path, e)
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", e)
	}
	return nil
}

// GoLocked runs fn on a new goroutine locked for good to an OS thread that
// is not the process's main thread; fn confines that thread (Landlock,
// seccomp, capabilities, namespaces) and starts workers from it. The main
// thread must never be confined: it is the thread group's leader, whose
// Landlock domain is the one a signal to the process is checked against, so
// a confined leader would let the workers signal the host; and Go never
// ends the main thread, so its confinement would outlive the goroutine.
// When the new goroutine lands on the main thread, it holds that thread
// while another goroutine, necessarily on another thread, runs fn.
func GoLocked(fn func()) {
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			started := make(chan struct{})
			GoLocked(func() {
				close(started)
				fn()
			})
			<-started
			runtime.UnlockOSThread()
			return
		}
		fn() // never unlocked: the thread ends with this goroutine
	}()
}
