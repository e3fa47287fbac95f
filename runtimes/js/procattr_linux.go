//go:build linux

package js

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// workerProcAttr makes a worker die with the host: SIGKILL when the
// thread that started it ends. That is the thread, not the process, so
// workers are started on a thread that never ends (startWorker).
func workerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

var (
	spawnOnce sync.Once
	spawnReq  chan spawnJob
)

type spawnJob struct {
	cmd  *exec.Cmd
	done chan error
}

// startWorker starts cmd from a goroutine locked to its thread for the
// life of the process. A thread of the Go runtime can end (when a
// goroutine that locked it returns, as the Python sandbox's do), and a
// worker started from it would then be killed by its parent-death signal.
func startWorker(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReq = make(chan spawnJob)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread never ends
			for j := range spawnReq {
				j.done <- j.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnReq <- spawnJob{cmd, done}
	return <-done
}

// limitData sets RLIMIT_DATA to what the process maps for data now plus
// extra bytes. RLIMIT_DATA, not RLIMIT_AS: the Go runtime reserves far more
// address space than it uses (a 1 GiB RLIMIT_AS fails the first 100 MiB
// allocation), but reservations are not data until they are used. The
// current size is added because the race detector's shadow memory is
// already mapped when the worker starts.
func limitData(extra int64) error {
	cur, err := vmData()
	if err != nil {
		return err
	}
	lim := cur + uint64(extra)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim})
}

// vmData reads VmData from /proc/self/status, in bytes.
func vmData() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmData:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return n << 10, nil
		}
	}
	return 0, os.ErrNotExist
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
