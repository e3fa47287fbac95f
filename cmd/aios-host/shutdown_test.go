package main

import (
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestAwaitShutdownSecondSignal: a shutdown that hangs (a provider that
// will not close) is cut short by a second signal, and one that finishes
// returns its own exit code.
func TestAwaitShutdownSecondSignal(t *testing.T) {
	stubForcedExit(t)
	log := slog.New(slog.DiscardHandler)
	longAgo := time.Now().Add(-time.Hour) // the first signal, well before
	again := make(chan os.Signal, 1)
	if got := awaitShutdown(again, longAgo, log, func() int { return exitOK }); got != exitOK {
		t.Errorf("finished shutdown: exit %d, want %d", got, exitOK)
	}
	if got := awaitShutdown(again, longAgo, log, func() int { return exitFail }); got != exitFail {
		t.Errorf("failed shutdown: exit %d, want %d", got, exitFail)
	}

	hang := make(chan struct{})
	defer close(hang)
	done := make(chan int, 1)
	go func() { done <- awaitShutdown(again, longAgo, log, func() int { <-hang; return exitOK }) }()
	select {
	case code := <-done:
		t.Fatalf("returned %d before any second signal", code)
	case <-time.After(50 * time.Millisecond):
	}
	again <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != exitFail {
			t.Errorf("after a second signal: exit %d, want %d", code, exitFail)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second signal did not end a hanging shutdown")
	}
}

// stubForcedExit keeps awaitShutdown from killing the children of the
// test process (those of other tests' hosts) when it gives up.
func stubForcedExit(t *testing.T) {
	old := onForcedExit
	onForcedExit = func() {}
	t.Cleanup(func() { onForcedExit = old })
}
