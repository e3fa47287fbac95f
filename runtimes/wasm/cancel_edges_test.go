package wasm

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseKeepsDeadlineOfCallInFlight: a provider closed while a
// call of it runs (host.RemoveProvider, host.ReplaceProvider or host.Close
// under a call) still stops that call at its deadline. Close took the
// provider off the watchdog at once, so a guest that loops (here: sleep,
// whose poll_oneoff returns at the deadline and is called again) ran on
// for ever on its caller's goroutine, which the host does not watch for a
// deadline keeper.
func TestCloseKeepsDeadlineOfCallInFlight(t *testing.T) {
	l := newTestLoader(t, Config{Clock: "real"}, nil)
	p := load(t, l, builtGuest(t, "conformance"))
	env := newFakeEnv(p, 2)
	if _, err := call(p, env, "echo", map[string]any{"value": 1}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := call(p, env, "sleep", map[string]any{"ms": int64(600000)}, 1500*time.Millisecond)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.Timeout {
			t.Errorf("want Timeout, got %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the call returned %v after it started, its deadline was 1.5 s", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a call in flight at Close was not stopped at its deadline (10 s later it still ran)")
	}
	if n := p.Instances(); n != 0 {
		t.Errorf("%d instances open after the call ended on a closed provider", n)
	}
}
