//go:build linux

package seccomp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProgramJumps: every jump of the filter lands inside it, and it ends
// with a return.
func TestProgramJumps(t *testing.T) {
	for _, network := range []bool{false, true} {
		for _, readOnly := range []bool{false, true} {
			prog, err := Program(network, readOnly, OwnScheduling)
			if err != nil {
				t.Skip(err)
			}
			for i, ins := range prog {
				if ins.Code&0x07 != unix.BPF_JMP { // the instruction class
					continue
				}
				if i+1+int(ins.Jt) >= len(prog) || i+1+int(ins.Jf) >= len(prog) {
					t.Errorf("network=%v: instruction %d jumps past the end", network, i)
				}
			}
			if last := prog[len(prog)-1]; last.Code != bpfRetK {
				t.Errorf("network=%v: the program does not end with a return", network)
			}
		}
	}
}

// TestInstallProcess runs a copy of the test binary that installs the
// filter on all its threads and reports what is refused, on the thread
// that installed it and on another one that existed before.
func TestInstallProcess(t *testing.T) {
	if os.Getenv("AIOS_SECCOMP_HELPER") == "1" {
		seccompHelper()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInstallProcess$")
	cmd.Env = append(os.Environ(), "AIOS_SECCOMP_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP ") {
		t.Skip(string(out))
	}
	for _, want := range []string{
		"installer socket: permission denied",
		"installer setrlimit: operation not permitted",
		"installer connect: permission denied",
		"installer unshare: operation not permitted",
		"installer clone3: function not implemented",
		"other unshare: operation not permitted",
		"installer keyctl: operation not permitted",
		"other keyctl: operation not permitted",
		"other socket: permission denied",
		"other setrlimit: operation not permitted",
		"other getrlimit: ok",
		"installer socketpair dgram: permission denied",
		"installer socketpair raw: permission denied",
		"installer socketpair inet: permission denied",
		"installer socketpair stream: ok",
		"installer socketpair seqpacket: ok",
		"installer shmget: operation not permitted",
		"other msgget: operation not permitted",
		"other semget: operation not permitted",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q; the helper said:\n%s", want, out)
		}
	}
}

func seccompHelper() {
	// A thread that exists before the filter is installed.
	probe := make(chan string)
	results := make(chan string)
	go func() {
		runtime.LockOSThread()
		for who := range probe {
			results <- tryAll(who)
		}
	}()
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Println("SKIP no_new_privs:", err)
		return
	}
	if err := InstallProcess(false, false); err != nil {
		fmt.Println("SKIP install:", err)
		return
	}
	fmt.Print(tryAll("installer"))
	probe <- "other"
	fmt.Print(<-results)
}

func tryAll(who string) string {
	var b strings.Builder
	res := func(what string, err error) {
		if err == nil {
			fmt.Fprintf(&b, "%s %s: ok\n", who, what)
		} else {
			fmt.Fprintf(&b, "%s %s: %v\n", who, what, err)
		}
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.Close(fd)
	}
	res("socket", err)
	// A socket of another's making (a brokered one) would be re-pointed
	// by connect: refused before the descriptor is looked at.
	res("connect", unix.Connect(-1, &unix.SockaddrInet4{Port: 1}))
	// No user namespace (EINVAL without the filter: the process has
	// threads), and no clone3, whose flags the filter cannot read (an
	// empty argument: EINVAL without the filter).
	res("unshare", unix.Unshare(unix.CLONE_NEWUSER))
	if _, _, e := unix.Syscall(unix.SYS_CLONE3, 0, 0, 0); e != 0 {
		res("clone3", e)
	} else {
		res("clone3", nil)
	}
	// No kernel keyrings (the host user's keys are in them).
	_, err = unix.KeyctlGetKeyringID(unix.KEY_SPEC_USER_KEYRING, false)
	res("keyctl", err)
	// Unix stream and seqpacket pairs only: a datagram socket sends to
	// any unix socket by path (AF_UNIX SOCK_RAW is a datagram socket).
	for _, c := range []struct {
		name         string
		domain, kind int
	}{
		{"dgram", unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC},
		{"raw", unix.AF_UNIX, unix.SOCK_RAW},
		{"inet", unix.AF_INET, unix.SOCK_STREAM},
		{"stream", unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK},
		{"seqpacket", unix.AF_UNIX, unix.SOCK_SEQPACKET},
	} {
		fds, err := unix.Socketpair(c.domain, c.kind, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		res("socketpair "+c.name, err)
	}
	// No System V IPC (the host user's shared memory segments are in
	// the IPC namespace a worker shares). What is made is removed again.
	for _, c := range []struct {
		name     string
		get, ctl uintptr
		args     [3]uintptr
	}{
		{"shmget", unix.SYS_SHMGET, unix.SYS_SHMCTL, [3]uintptr{unix.IPC_PRIVATE, 4096, unix.IPC_CREAT | 0o600}},
		{"msgget", unix.SYS_MSGGET, unix.SYS_MSGCTL, [3]uintptr{unix.IPC_PRIVATE, unix.IPC_CREAT | 0o600, 0}},
		{"semget", unix.SYS_SEMGET, unix.SYS_SEMCTL, [3]uintptr{unix.IPC_PRIVATE, 1, unix.IPC_CREAT | 0o600}},
	} {
		id, _, e := unix.Syscall(c.get, c.args[0], c.args[1], c.args[2])
		if e != 0 {
			res(c.name, e)
			continue
		}
		if c.name == "semget" {
			_, _, _ = unix.Syscall(c.ctl, id, 0, unix.IPC_RMID)
		} else {
			_, _, _ = unix.Syscall(c.ctl, id, unix.IPC_RMID, 0)
		}
		res(c.name, nil)
	}
	var lim syscall.Rlimit
	err = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	res("getrlimit", err)
	err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	if errors.Is(err, syscall.EPERM) {
		err = syscall.EPERM
	}
	res("setrlimit", err)
	return b.String()
}
