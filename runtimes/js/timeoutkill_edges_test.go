//go:build unix

package js

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProcessTimeoutKillSaysWhy: when a worker process stops answering
// (here: stopped with SIGSTOP) and a call passes its deadline plus the
// grace, the host kills the worker; the other calls it was serving fail
// saying so. They said only "its JS worker process ended (signal:
// killed)", as if something outside had killed it.
func TestProcessTimeoutKillSaysWhy(t *testing.T) {
	p := loadIsolated(t, Options{}, `
aios.registerTool({name: 'wait', description: 'waits'}, () => new Promise((r) => setTimeout(r, 60000)));
aios.registerTool({name: 'short', description: 'waits too'}, () => new Promise((r) => setTimeout(r, 60000)));
`)
	pid := p.PID()
	long := make(chan error, 1)
	go func() {
		_, err := p.Call(context.Background(), &abi.ToolCall{ID: "l", Tool: "wait", Deadline: time.Now().Add(time.Minute)}, newFakeEnv())
		long <- err
	}()
	for start := time.Now(); !reachedProvider(p, 1); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatal("the call did not reach the worker")
		}
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	_, err := p.Call(context.Background(), &abi.ToolCall{ID: "s", Tool: "short", Deadline: time.Now().Add(100 * time.Millisecond)}, newFakeEnv())
	wantCode(t, err, abi.Timeout)
	var lerr error
	select {
	case lerr = <-long:
	case <-time.After(30 * time.Second):
		t.Fatal("the other call did not end with its worker")
	}
	te := wantCode(t, lerr, abi.ProviderCrashed)
	for _, want := range []string{"killed", "short", "deadline"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("the other call's error does not say %q (why the host killed the worker): %s", want, te.Message)
		}
	}
}
