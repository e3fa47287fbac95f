//go:build wasmtime

package wasm

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWasmtimeLoaderCloseStopsCalls: WasmtimeLoader.Close let a call
// running in a guest go on to its deadline; Close waited 5 s for it and
// then failed ("1 load(s) or call(s) still running 5s after Close"),
// leaving the guest to spin until then, where wazero's Loader.Close
// interrupts the calls in its guests and they end Unavailable, "the wasm
// runtime is closing". A looping call is now stopped by Close on wasmtime
// too (its epoch callback sees the loader closing), in wazero's words,
// and Close returns without error once it has left the guest.
func TestWasmtimeLoaderCloseStopsCalls(t *testing.T) {
	l, err := NewWasmtimeLoader(Options{Config: Config{CacheDir: t.TempDir()}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.wtclosestop", 2))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const deadline = time.Minute
	done := make(chan error, 1)
	go func() {
		_, err := call(p, newFakeEnv(p, 5), "loop", nil, deadline)
		done <- err
	}()
	for until := time.Now().Add(30 * time.Second); l.drain.InFlight() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(until) {
			t.Fatal("the call did not start")
		}
	}
	time.Sleep(50 * time.Millisecond) // in the guest's loop
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Errorf("Close while a call loops: %v (after %v), want nil once the call is stopped", err, time.Since(start))
	}
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "closing") {
			t.Errorf("the call in flight at Close answered %v, want Unavailable saying the runtime is closing", err)
		}
	case <-time.After(deadline / 2):
		t.Fatal("the call in flight at Close was not stopped")
	}
}
