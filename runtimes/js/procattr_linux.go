//go:build linux

package js

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/caps"
	"github.com/aios-host/aios-host/internal/cloexec"
	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/proclimit"
	"github.com/aios-host/aios-host/internal/seccomp"
)

// workerProcAttr makes a worker die with the host: SIGKILL when the
// thread that started it ends. That is the thread, not the process, so
// workers are started on a thread that never ends (startWorker). A
// worker leads a process group of its own, as a Python worker and an MCP
// server do: in the host's, a Ctrl-C at its terminal (SIGINT to the
// foreground group) killed every worker before the host's shutdown could
// let the calls in flight end (TestWorkerLeadsItsOwnProcessGroup).
func workerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// spawners are the threads workers are started from, one per confinement:
// key "" is unconfined, any other key is the worker executable the
// thread's Landlock domain was made for.
var (
	spawnMu  sync.Mutex
	spawners = map[string]*spawner{}
)

type spawner struct {
	jobs     chan spawnJob
	degraded string // why the thread could not be confined ("" if it was, or was not asked to be)
}

type spawnJob struct {
	cmd  *exec.Cmd
	done chan error
}

// startWorker starts cmd from a goroutine locked to its thread for the
// life of the process. A thread of the Go runtime can end (when a
// goroutine that locked it returns, as the Python sandbox's do), and a
// worker started from it would then be killed by its parent-death signal.
// With confine, that thread is first confined (confineThread) and the
// worker inherits the confinement. It returns why confinement was not
// possible ("" when it was, or was not asked for).
func startWorker(cmd *exec.Cmd, confine bool) (degraded string, err error) {
	// A descriptor the host inherited without close-on-exec passed to
	// every worker (internal/cloexec).
	cloexec.Stray()
	key := ""
	if confine {
		key = cmd.Path
	}
	spawnMu.Lock()
	sp := spawners[key]
	if sp == nil {
		sp = &spawner{jobs: make(chan spawnJob)}
		ready := make(chan string)
		landlock.GoLocked(func() { // a thread of its own, never the main one, that never ends
			ready <- confineThread(key)
			for j := range sp.jobs {
				j.done <- j.cmd.Start()
			}
		})
		sp.degraded = <-ready
		spawners[key] = sp
	}
	spawnMu.Unlock()
	done := make(chan error, 1)
	sp.jobs <- spawnJob{cmd, done}
	return sp.degraded, <-done
}

// confineThread confines the calling thread, and so every worker started
// from it, with no_new_privs and Landlock to what a worker needs: read and
// execute exe and the shared libraries the dynamic loader maps. Nothing
// else is readable — not /proc, where other processes' environments are —
// except in a race-detector build, whose runtime reads /proc/self/maps;
// nothing is writable; with Landlock ABI >= 4 TCP bind and connect are
// denied, with ABI >= 6 signals to processes outside the domain (the host).
// Workers start with no capabilities, even when the host runs as root. It
// returns why it could not ("" on success or when exe is "").
func confineThread(exe string) string {
	if exe == "" {
		return ""
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "prctl(PR_SET_NO_NEW_PRIVS): " + err.Error()
	}
	// A host running as root would hand workers all its capabilities.
	capsErr := caps.DropForExec()
	why := landlockThread(exe)
	if capsErr != nil {
		if why != "" {
			why += "; "
		}
		why += "dropping capabilities: " + capsErr.Error()
	}
	return why
}

// landlockThread confines the calling thread with Landlock (confineThread).
func landlockThread(exe string) string {
	v, err := landlock.Version()
	if err != nil {
		return err.Error()
	}
	rules := []landlock.Rule{{Path: exe}}
	paths := []string{"/lib", "/lib32", "/lib64", "/usr/lib", "/usr/lib32", "/usr/lib64", "/etc/ld.so.cache"}
	// The time zone data Go reads for time.Local (TZ, else /etc/localtime,
	// a link into the zoneinfo folder), so that a worker's local time is
	// the host's (isolate.go passes TZ and ZONEINFO on).
	paths = append(paths, "/etc/localtime", "/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ")
	if z := os.Getenv("ZONEINFO"); filepath.IsAbs(z) {
		paths = append(paths, z)
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); filepath.IsAbs(tz) {
		paths = append(paths, tz)
	}
	if proclimit.Race {
		paths = append(paths, "/proc")
	}
	for _, p := range paths {
		rules = append(rules, landlock.Rule{Path: p})
	}
	if err := landlock.RestrictThread(v, rules, true); err != nil {
		return err.Error()
	}
	return ""
}

// protectStdout moves the protocol to a new descriptor and points
// descriptor 1 at stderr, so nothing printed by accident corrupts it.
func protectStdout() (*os.File, error) {
	fd, err := syscall.Dup(1)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup3(2, 1, 0); err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "aios-js-worker-protocol"), nil
}

// pollStdin makes stdin non-blocking and returns a reader of it through
// the Go poller.
func pollStdin() (io.Reader, error) {
	if err := syscall.SetNonblock(0, true); err != nil {
		return nil, err
	}
	return os.NewFile(0, "stdin"), nil
}

// confineSelf installs the seccomp filter of a worker that writes no file
// on every thread of the worker
// (no_new_privs is inherited from the spawning thread when it was
// confined; it is set again here in case it was not).
func confineSelf() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	// readOnly: a worker writes no file, and Landlock governs a file's
	// contents and names, not its mode, owner, times or extended
	// attributes; a worker runs as the host's user, so without it a tool
	// (through a hole in goja or the Go runtime) chmod-ed a file of that
	// user 0777 and set its times (TestWorkerCannotChangeFileMetadata).
	if err := seccomp.InstallProcess(false, true); err != nil {
		return err
	}
	// Every worker is started from one confined thread (startWorker), so
	// all are in one Landlock domain, which does not keep them off one
	// another: a worker killed, ptraced and read the memory of another
	// provider's worker (TestWorkerCannotReachSiblingWorkers). A worker
	// needs no process but itself.
	return seccomp.InstallSelfProcess()
}
