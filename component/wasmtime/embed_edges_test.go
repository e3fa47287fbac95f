//go:build wasmtime

package wasmtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Loader.Close stopped the epoch ticker under a call still running: the
// guest was no longer interrupted at its deadline (a call of 4 s with a
// deadline of 1 s ran its 4 s and answered success after the deadline).
// Close now refuses new loads and calls and keeps the ticker until those
// in progress have ended.
func TestLoaderCloseKeepsDeadlines(t *testing.T) {
	l := NewLoader(Options{})
	pr, err := l.Load(context.Background(), abi.Source{Path: sample(t, "conformance")})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := pr.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "sleep", Params: map[string]any{"ms": int64(4000)},
			Deadline: time.Now().Add(time.Second)}, &fakeEnv{})
		done <- err
	}()
	for l.drain.InFlight() == 0 {
		time.Sleep(time.Millisecond)
	}
	_ = pr.Close()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.Timeout {
			t.Fatalf("the call in flight at Close answered %v, want Timeout at its deadline", err)
		}
	default:
		t.Fatal("Close returned while a call was still running")
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	if _, err := l.Load(context.Background(), abi.Source{Path: sample(t, "conformance")}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Load after Close: %v, want an error saying the loader is closed", err)
	}
}
