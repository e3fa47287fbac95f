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

// WasmtimeLoader.Close stopped the epoch ticker under a call still
// running: a looping guest was then never interrupted, and its caller
// hung. Close now refuses new loads and calls and keeps the ticker until
// those in progress have ended (here: once Close has stopped the call,
// Unavailable as on wazero; TestWasmtimeLoaderCloseStopsCalls).
func TestWasmtimeLoaderCloseKeepsDeadlines(t *testing.T) {
	l, err := NewWasmtimeLoader(Options{Config: Config{CacheDir: t.TempDir(), DeadlineGranularity: time.Millisecond}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	path := buildWAT(t, basicWAT("org.test.wtclose", 2))
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := call(p, newFakeEnv(p, 5), "loop", nil, 300*time.Millisecond)
		done <- err
	}()
	for l.drain.InFlight() == 0 {
		time.Sleep(time.Millisecond)
	}
	_ = p.Close()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.Unavailable {
			t.Fatalf("the call in flight at Close answered %v, want Unavailable (stopped by Close)", err)
		}
	default:
		t.Fatal("Close returned while a call was still running")
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	if _, err := l.Load(context.Background(), abi.Source{Path: path}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Load after Close: %v, want an error saying the loader is closed", err)
	}
}
