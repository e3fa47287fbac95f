//go:build linux

package js

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestWorkerCannotStartProcesses: a JS worker never starts a process, and
// one it started (through a hole in goja or the Go runtime) would not die
// with the host (a parent-death signal is not inherited) and would outlive
// it, or fork without end. A copy of the test binary confines itself as a
// worker does and tries to start one; it can still start threads.
func TestWorkerCannotStartProcesses(t *testing.T) {
	if os.Getenv("AIOS_JS_FORK_HELPER") == "1" {
		forkHelper()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerCannotStartProcesses$")
	cmd.Env = append(os.Environ(), "AIOS_JS_FORK_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP ") {
		t.Skip(string(out))
	}
	for _, want := range []string{"start a process: operation not permitted", "start a thread: ok"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q; the helper said:\n%s", want, out)
		}
	}
}

func forkHelper() {
	if err := confineSelf(); err != nil {
		fmt.Println("SKIP confineSelf:", err)
		return
	}
	pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^$"}, &syscall.ProcAttr{})
	if err == nil {
		fmt.Printf("start a process: ok (pid %d)\n", pid)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	} else {
		fmt.Println("start a process:", err)
	}
	// A goroutine locked to its thread while others run needs new threads.
	done := make(chan struct{})
	for i := 0; i < 4; i++ {
		go func() {
			runtime.LockOSThread()
			done <- struct{}{}
			select {}
		}()
	}
	for i := 0; i < 4; i++ {
		<-done
	}
	fmt.Println("start a thread: ok")
}
