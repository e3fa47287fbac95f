//go:build linux

package js

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/landlock"
)

// TestWorkerCannotReachSiblingWorkers: every JS worker is started from one
// confined thread (startWorker), so all of them are in one Landlock
// domain, and Landlock lets a process signal and ptrace the processes of
// its own domain. A worker (through a hole in goja or the Go runtime)
// killed another provider's worker, and where Yama does not forbid it read
// its memory (process_vm_readv: the other provider's params, results,
// Space data). Two copies of the test binary are started as workers are;
// the second confines itself as a worker does and tries the first.
func TestWorkerCannotReachSiblingWorkers(t *testing.T) {
	if h := os.Getenv("AIOS_JS_SIBLING_HELPER"); h != "" {
		siblingHelper(h)
		return
	}
	if _, err := landlock.Version(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	start := func(role string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerCannotReachSiblingWorkers$")
		cmd.Env = []string{"AIOS_JS_SIBLING_HELPER=" + role}
		cmd.SysProcAttr = workerProcAttr()
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if degraded, err := startWorker(cmd, true); err != nil {
			t.Fatal(err)
		} else if degraded != "" {
			t.Skipf("workers are not confined here: %s", degraded)
		}
		t.Cleanup(func() {
			in.Close()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		return cmd, in, bufio.NewReader(out)
	}
	victim, _, vout := start("victim")
	line, err := vout.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY ") {
		t.Fatalf("the victim worker said %q, %v", line, err)
	}
	_, _, pout := start(strconv.Itoa(victim.Process.Pid) + " " + strings.TrimSpace(strings.TrimPrefix(line, "READY ")))
	b, _ := io.ReadAll(pout)
	out := string(b)
	if strings.Contains(out, "SKIP ") {
		t.Skip(out)
	}
	for _, what := range []string{"kill", "process_vm_readv", "ptrace"} {
		refused := false
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, what+": ") {
				refused = strings.HasSuffix(line, "operation not permitted")
			}
		}
		if !refused {
			t.Errorf("%s of a sibling worker: want operation not permitted; the prober said:\n%s", what, out)
		}
	}
	// What a worker needs of signals still works: its own.
	if !strings.Contains(out, "kill self: ok") {
		t.Errorf("a worker could not signal itself; the prober said:\n%s", out)
	}
}

// siblingVictim holds a secret a sibling must not read.
var siblingVictim = []byte("the other provider's secret")

func siblingHelper(role string) {
	if role == "victim" {
		fmt.Printf("READY %d\n", uintptr(unsafe.Pointer(&siblingVictim[0])))
		_, _ = io.Copy(io.Discard, os.Stdin) // until the test ends
		return
	}
	var pid int
	var addr uintptr
	_, _ = fmt.Sscan(role, &pid, &addr)
	if err := confineSelf(); err != nil {
		fmt.Println("SKIP confineSelf:", err)
		return
	}
	res := func(what string, err error) {
		if err == nil {
			fmt.Printf("%s: ok\n", what)
		} else {
			fmt.Printf("%s: %v\n", what, err)
		}
	}
	res("kill", unix.Kill(pid, 0))
	res("kill self", unix.Kill(os.Getpid(), 0))
	buf := make([]byte, len(siblingVictim))
	_, err := unix.ProcessVMReadv(pid, []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}},
		[]unix.RemoteIovec{{Base: addr, Len: len(buf)}}, 0)
	if err == nil {
		fmt.Printf("read %q\n", buf)
	}
	res("process_vm_readv", err)
	err = unix.PtraceSeize(pid)
	res("ptrace", err)
}
