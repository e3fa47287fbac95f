package component

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseUnderCall: a component closed while a call of it runs
// (host.RemoveProvider, host.ReplaceProvider or host.Close under a call)
// still stops that call at its deadline, and a call that reaches it after
// Close (it looked the tool up just before the swap) fails with
// Unavailable. Close stopped the deadline watchdog and closed the wazero
// runtime at once: the running guest was never stopped, and a later call
// panicked inside wazero compiling on the closed runtime.
func TestCloseUnderCall(t *testing.T) {
	p, err := New(context.Background(), sample(t, "conformance"), "conformance.wasm", "", Options{CacheDir: testCacheDir(), RealClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := call(t, p, &fakeEnv{}, "echo", map[string]any{"value": 1}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := p.Call(context.Background(), &abi.ToolCall{ID: "s", Tool: "sleep", Params: map[string]any{"ms": int64(600000)}, Deadline: start.Add(1500 * time.Millisecond)}, &fakeEnv{})
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
		t.Error("a call in flight at Close was not stopped at its deadline (10 s later it still ran)")
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		_, err = call(t, p, &fakeEnv{}, "echo", map[string]any{"value": 1})
	}()
	if abi.CodeOf(err) != abi.Unavailable {
		t.Errorf("a call after Close: want Unavailable, got %v", err)
	}
}
