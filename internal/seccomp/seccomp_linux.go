//go:build linux

// Package seccomp builds and installs the seccomp filter of worker
// processes (Python workers, JS workers): socket(2) and connect(2)
// refused unless network is allowed, bind(2) refused too (with network
// but for IP and netlink address lengths: no abstract unix names),
// socketpair(2) for unix stream and seqpacket pairs only, no user namespaces, no kernel
// keyrings, no System V IPC, no raising of
// resource limits, no io_uring, no other
// architecture's system calls, and for a worker that writes no file no
// change of a file's mode, owner, times or extended attributes, and with
// OwnScheduling no change of another process's scheduling; everything
// else allowed.
package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BPF instruction classes used by the filter.
const (
	bpfLdWAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K

	secRetAllow = 0x7fff0000
	secRetErrno = 0x00050000

	auditArchX86_64  = 0xc000003e
	auditArchAArch64 = 0xc00000b7
	x32SyscallBit    = 0x40000000
)

// Program builds the filter: other architectures' syscalls
// (and x32) fail with EPERM; socket(2) and connect(2) fail with EACCES
// unless network is allowed, and then socket(2) still for AF_UNIX;
// socketpair(2) fails with EACCES but for AF_UNIX stream and seqpacket
// pairs; bind(2) fails with EACCES unless network is allowed, and then
// for an address length other than sockaddr_in's, sockaddr_in6's or
// sockaddr_nl's;
// unshare and clone with CLONE_NEWUSER fail with EPERM and clone3 with
// ENOSYS (no user namespaces); keyctl, add_key and request_key fail with
// EPERM (no kernel keyrings), and so do the System V IPC calls (shmget,
// shmat, msgget, semget and the rest); setrlimit, prlimit64 with a new limit and io_uring_setup fail
// with EPERM; with readOnly (a worker that writes no file) the calls that
// change a file's mode, owner, times or extended attributes fail with
// EPERM; with the rule OwnScheduling, the calls that change a process's
// scheduling (setpriority, ioprio_set, sched_setaffinity and the other
// sched_set* calls) fail with EPERM unless they name the calling process
// (pid 0) or its process group; everything else is allowed.
func Program(network, readOnly bool, rules ...Rule) ([]unix.SockFilter, error) {
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
	eacces := uint32(secRetErrno | uint32(unix.EACCES))
	eperm := uint32(secRetErrno | uint32(unix.EPERM))
	enosys := uint32(secRetErrno | uint32(unix.ENOSYS))
	// socket(2): refused; with network, refused for AF_UNIX only. Network
	// is the network, not the host's local sockets: its JSON-RPC socket
	// takes the peer's uid — the host's — for the default agent, and the
	// user's session bus or ssh-agent listen there too. socketpair(2) is
	// another system call (below). Without network connect(2) is
	// refused too: a worker holds no socket of its own, but a Python
	// worker with Network(host) holds TCP sockets the host connected for
	// it, in the host's network namespace, and connect(AF_UNSPEC) would
	// disconnect one and a second connect (or sendto with MSG_FASTOPEN)
	// re-point it at any address, which only Landlock ABI >= 4 refuses.
	//
	// bind(2): refused without network, where a worker's only sockets
	// are socket pairs' and the host's brokered, connected ones; with
	// network, refused for every address length but an IP socket's
	// (sockaddr_in, sockaddr_in6) or a netlink one's (sockaddr_nl, which
	// glibc's getaddrinfo binds). The only unix sockets a worker holds
	// are socket pairs', and binding one to an abstract name ("\0name")
	// took that name from every process of the network namespace — the
	// host's, for a worker with Network(*) or where network namespaces
	// are unavailable (the abstract namespace has no permissions, nor
	// does Landlock cover a bind there): a service binding it later
	// failed, a client connecting was refused. The address itself is in
	// memory a filter cannot read, so an abstract name as long as one of
	// those addresses (10, 14 or 26 bytes) still binds with network.
	sock := []unix.SockFilter{
		jmp(bpfJeqK, unix.SYS_SOCKET, 2, 0),
		jmp(bpfJeqK, unix.SYS_CONNECT, 1, 0),
		jmp(bpfJeqK, unix.SYS_BIND, 0, 1),
		st(bpfRetK, eacces),
	}
	if network {
		sock = []unix.SockFilter{
			jmp(bpfJeqK, unix.SYS_SOCKET, 0, 4),
			st(bpfLdWAbs, 16), // args[0] low word: the domain
			jmp(bpfJeqK, unix.AF_UNIX, 0, 1),
			st(bpfRetK, eacces),
			st(bpfRetK, secRetAllow),
			jmp(bpfJeqK, unix.SYS_BIND, 0, 6),
			st(bpfLdWAbs, 16+2*8), // args[2] low word: the address length
			jmp(bpfJeqK, unix.SizeofSockaddrInet4, 2, 0),
			jmp(bpfJeqK, unix.SizeofSockaddrInet6, 1, 0),
			jmp(bpfJeqK, unix.SizeofSockaddrNetlink, 0, 1),
			st(bpfRetK, secRetAllow),
			st(bpfRetK, eacces),
		}
	}
	// socketpair(2): AF_UNIX SOCK_STREAM and SOCK_SEQPACKET pairs only
	// (asyncio, multiprocessing.Pipe, subprocess use them), else EACCES.
	// A datagram pair's socket sends to any unix socket by path
	// (sendto(2) with an address, or connect(2) to another peer with
	// Network), which Landlock does not cover: a worker without network
	// wrote to a datagram socket of the host's machine (syslog's /dev/log,
	// journald, sd_notify; TestNoDatagramSocketPair). A stream or
	// seqpacket pair's sockets stay connected to each other (an address
	// given to send is refused or ignored).
	sock = append([]unix.SockFilter{
		jmp(bpfJeqK, unix.SYS_SOCKETPAIR, 0, 8),
		st(bpfLdWAbs, 16), // args[0] low word: the domain
		jmp(bpfJeqK, unix.AF_UNIX, 0, 4),
		st(bpfLdWAbs, 16+8), // args[1] low word: the type and its flags
		st(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, 0xf),
		jmp(bpfJeqK, unix.SOCK_STREAM, 2, 0),
		jmp(bpfJeqK, unix.SOCK_SEQPACKET, 1, 0),
		st(bpfRetK, eacces),
		st(bpfRetK, secRetAllow),
	}, sock...)
	// With readOnly, no chmod, chown, utime or xattr calls: Landlock
	// governs a file's contents and names only, and a worker runs as the
	// host's user, so a worker that writes no file made one of that user
	// anywhere world-writable (chmod 0777; fchmod of a file it may read),
	// set its times or its extended attributes.
	// refuse makes each of nrs fail with ret.
	refuse := func(nrs []uint32, ret uint32) []unix.SockFilter {
		var out []unix.SockFilter
		n := len(nrs)
		for i, nr := range nrs {
			jf := uint8(0)
			if i == n-1 {
				jf = 1 // past the return
			}
			out = append(out, jmp(bpfJeqK, nr, uint8(n-1-i), jf))
		}
		if n > 0 {
			out = append(out, st(bpfRetK, ret))
		}
		return out
	}
	var meta []unix.SockFilter
	if readOnly {
		meta = refuse(metaSyscalls, eperm)
	}
	// No System V IPC: its shared memory segments, message queues and
	// semaphores are not files (Landlock does not cover them) and belong
	// to the IPC namespace, which a worker shares with the host, while
	// it runs as the host's user: a tool read a shared memory segment of
	// that user (an X client's MIT-SHM image of a window, a database's)
	// with shmctl(SHM_STAT) and shmat, and could write or remove it
	// (TestNoSysVIPC).
	meta = append(meta, refuse([]uint32{
		unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL,
		unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
		unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMTIMEDOP, unix.SYS_SEMCTL,
	}, eperm)...)
	for _, r := range rules {
		if r == OwnScheduling {
			meta = append(meta, ownScheduling(eperm)...)
		}
	}
	return append(append(append(append([]unix.SockFilter{
		st(bpfLdWAbs, 4), // arch
		jmp(bpfJeqK, arch, 1, 0),
		st(bpfRetK, eperm),
		st(bpfLdWAbs, 0), // nr
		jmp(bpfJgeK, x32, 0, 1),
		st(bpfRetK, eperm),
	}, sock...), []unix.SockFilter{
		// No user namespaces: in one a process holds every capability
		// over the namespaces it then makes (mount, network, PID, ...).
		// Landlock and this filter still refuse it mounts and sockets,
		// but the kernel code only a namespace's root reaches is a
		// source of many a local privilege escalation. unshare and
		// clone with CLONE_NEWUSER fail with EPERM; clone3 passes its
		// flags in memory a filter cannot read, so it fails with ENOSYS,
		// on which libc falls back to clone (Go's fork of a worker uses
		// clone: it asks for no cgroup fd and no time namespace).
		jmp(bpfJeqK, unix.SYS_CLONE3, 0, 1),
		st(bpfRetK, enosys),
		jmp(bpfJeqK, unix.SYS_UNSHARE, 1, 0),
		jmp(bpfJeqK, unix.SYS_CLONE, 0, 3),
		st(bpfLdWAbs, 16), // args[0] low word: the flags
		jmp(bpfJsetK, unix.CLONE_NEWUSER, 0, 1),
		st(bpfRetK, eperm),
		st(bpfLdWAbs, 0), // nr again
	}...), meta...), []unix.SockFilter{
		// No kernel keyrings: Landlock does not cover them, and the
		// user and session keyrings of the host's user (a Kerberos
		// ticket cache, a passphrase systemd cached for cryptsetup) were
		// readable to a worker with keyctl(KEYCTL_SEARCH, KEYCTL_READ).
		jmp(bpfJeqK, unix.SYS_KEYCTL, 2, 0),
		jmp(bpfJeqK, unix.SYS_ADD_KEY, 1, 0),
		jmp(bpfJeqK, unix.SYS_REQUEST_KEY, 0, 1),
		st(bpfRetK, eperm),
		jmp(bpfJeqK, unix.SYS_SETRLIMIT, 0, 1),
		st(bpfRetK, eperm),
		jmp(bpfJeqK, unix.SYS_IO_URING_SETUP, 0, 1),
		st(bpfRetK, eperm),
		jmp(bpfJeqK, unix.SYS_PRLIMIT64, 1, 0),
		st(bpfRetK, secRetAllow),
		st(bpfLdWAbs, 16+2*8), // args[2] low word: the new limit
		jmp(bpfJeqK, 0, 0, 3),
		st(bpfLdWAbs, 16+2*8+4), // args[2] high word
		jmp(bpfJeqK, 0, 0, 1),
		st(bpfRetK, secRetAllow),
		st(bpfRetK, eperm),
	}...), nil
}

// st is a BPF statement, jmp a BPF jump (the filters' instructions).
func st(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func jmp(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
}

// Rule is a refusal a filter adds to Program's fixed ones.
type Rule int

// OwnScheduling limits the calls that change a process's scheduling to the
// calling process, for a worker that sees processes other than its own
// (no PID namespace of its own): Landlock's scopes keep it from signalling
// them, not from changing their scheduling, and a worker runs as the
// host's user, so a tool reniced the host to 19, pinned it to one CPU and
// made it SCHED_IDLE (set_one_prio and check_same_owner ask only for the
// same user; commoncap for no capability the caller lacks).
const OwnScheduling Rule = 1

// ownScheduling is the filter's part for OwnScheduling (A holds the
// syscall number; a matched call returns): setpriority and ioprio_set
// fail with ret for the whole user (PRIO_USER, IOPRIO_WHO_USER) and for
// another process or group (who != 0), sched_setaffinity,
// sched_setscheduler, sched_setparam and sched_setattr for a pid other
// than 0. The kernel reads these arguments as int, the low word.
func ownScheduling(ret uint32) []unix.SockFilter {
	var out []unix.SockFilter
	for _, c := range []struct{ nr, user uint32 }{
		{unix.SYS_SETPRIORITY, unix.PRIO_USER},
		{unix.SYS_IOPRIO_SET, 3}, // IOPRIO_WHO_USER
	} {
		out = append(out,
			jmp(bpfJeqK, c.nr, 0, 6),
			st(bpfLdWAbs, 16), // args[0] low word: which
			jmp(bpfJeqK, c.user, 3, 0),
			st(bpfLdWAbs, 16+8), // args[1] low word: who
			jmp(bpfJeqK, 0, 0, 1),
			st(bpfRetK, secRetAllow),
			st(bpfRetK, ret),
		)
	}
	for _, nr := range []uint32{unix.SYS_SCHED_SETAFFINITY, unix.SYS_SCHED_SETSCHEDULER, unix.SYS_SCHED_SETPARAM, unix.SYS_SCHED_SETATTR} {
		out = append(out,
			jmp(bpfJeqK, nr, 0, 4),
			st(bpfLdWAbs, 16), // args[0] low word: the pid
			jmp(bpfJeqK, 0, 0, 1),
			st(bpfRetK, secRetAllow),
			st(bpfRetK, ret),
		)
	}
	return out
}

// InstallThread installs the filter on the calling thread only (no
// TSYNC); the processes it starts inherit it. no_new_privs must be set
// already.
func InstallThread(network, readOnly bool, rules ...Rule) error {
	prog, err := Program(network, readOnly, rules...)
	if err != nil {
		return err
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fp)), 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECCOMP): %v", err)
	}
	return nil
}

// InstallProcess installs the filter on every thread of the calling
// process (SECCOMP_FILTER_FLAG_TSYNC), for a process that confines itself
// once it no longer needs what the filter refuses. The calling thread must
// have no_new_privs (or the process CAP_SYS_ADMIN).
func InstallProcess(network, readOnly bool) error {
	prog, err := Program(network, readOnly)
	if err != nil {
		return err
	}
	return installTSYNC(prog)
}

// SelfProgram builds a second filter for a process that needs no other
// process: execve, execveat, fork, vfork and clone without CLONE_THREAD
// (a new process) fail with EPERM, and so do ptrace, process_vm_readv and process_vm_writev, kcmp,
// process_madvise, pidfd_getfd, pidfd_send_signal and tkill fail with EPERM,
// and kill, tgkill, rt_sigqueueinfo and rt_tgsigqueueinfo fail with EPERM
// unless their first argument is pid (the process itself; the Go runtime
// signals its own threads with tgkill and itself with kill). Landlock keeps
// a process off the processes outside its domain only: processes started
// from one confined thread share a domain and could signal, ptrace and
// read the memory of one another (where Yama does not forbid it).
func SelfProgram(pid int) ([]unix.SockFilter, error) {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = auditArchX86_64
	case "arm64":
		arch = auditArchAArch64
	default:
		return nil, fmt.Errorf("no seccomp filter for GOARCH %s", runtime.GOARCH)
	}
	eperm := uint32(secRetErrno | uint32(unix.EPERM))
	prog := []unix.SockFilter{
		st(bpfLdWAbs, 4), // arch
		jmp(bpfJeqK, arch, 1, 0),
		st(bpfRetK, eperm),
		st(bpfLdWAbs, 0), // nr
	}
	never := append([]uint32{
		unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
		unix.SYS_KCMP, unix.SYS_PROCESS_MADVISE, unix.SYS_PIDFD_GETFD,
		unix.SYS_PIDFD_SEND_SIGNAL, unix.SYS_TKILL,
		// No new process: one would not die with the host (a parent's
		// death signal is not inherited) and could fork without end.
		unix.SYS_EXECVE, unix.SYS_EXECVEAT,
	}, forkSyscalls...)
	for i, nr := range never {
		jf := uint8(0)
		if i == len(never)-1 {
			jf = 1 // past the return
		}
		prog = append(prog, jmp(bpfJeqK, nr, uint8(len(never)-1-i), jf))
	}
	return append(prog,
		st(bpfRetK, eperm),
		// clone without CLONE_THREAD (clone3 fails with ENOSYS in
		// Program's filter, and Go falls back to clone).
		jmp(bpfJeqK, unix.SYS_CLONE, 0, 4),
		st(bpfLdWAbs, 16), // args[0] low word: the flags
		jmp(bpfJsetK, unix.CLONE_THREAD, 1, 0),
		st(bpfRetK, eperm),
		st(bpfRetK, secRetAllow),
		jmp(bpfJeqK, unix.SYS_KILL, 3, 0),
		jmp(bpfJeqK, unix.SYS_TGKILL, 2, 0),
		jmp(bpfJeqK, unix.SYS_RT_SIGQUEUEINFO, 1, 0),
		jmp(bpfJeqK, unix.SYS_RT_TGSIGQUEUEINFO, 0, 3),
		st(bpfLdWAbs, 16), // args[0] low word: the pid (the kernel reads an int)
		jmp(bpfJeqK, uint32(pid), 1, 0),
		st(bpfRetK, eperm),
		st(bpfRetK, secRetAllow),
	), nil
}

// InstallSelfProcess installs SelfProgram for the calling process on all
// its threads (TSYNC), in addition to the filters it has. The calling
// thread must have no_new_privs (or the process CAP_SYS_ADMIN).
func InstallSelfProcess() error {
	prog, err := SelfProgram(unix.Getpid())
	if err != nil {
		return err
	}
	return installTSYNC(prog)
}

// installTSYNC installs prog on every thread of the calling process.
func installTSYNC(prog []unix.SockFilter) error {
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fp)))
	if e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): %v", e)
	}
	if r != 0 {
		return fmt.Errorf("seccomp(TSYNC): thread %d could not be synchronized", r)
	}
	return nil
}
