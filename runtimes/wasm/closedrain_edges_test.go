package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// blockingHandler blocks each record while armed, until release is closed.
type blockingHandler struct {
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (h *blockingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *blockingHandler) Handle(context.Context, slog.Record) error {
	if h.armed.CompareAndSwap(true, false) {
		close(h.entered)
		<-h.release
	}
	return nil
}
func (h *blockingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *blockingHandler) WithGroup(string) slog.Handler      { return h }

// Loader.Close waited only for the instances its watchdog saw in a guest:
// a call making a new instance, whose start function ran inside wazero's
// InstantiateModule (no instance yet), was not seen, so Close closed the
// runtimes and the compile cache (freeing the compiled code) under the
// running start function. Close now counts the calls in progress and
// waits for them as for the guests it interrupted.
func TestLoaderCloseWaitsForStartFunction(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.closestart"},"tools":[{"name":"trap"}]}`)
	msg, _ := watData(2048, "starting")
	src := fmt.Sprintf(`(module
  (import "aios" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  %s%s
  (func $st (call $log (i32.const 1) (i32.const 2048) (i32.const 8)))
  (start $st)
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) unreachable))`, d, msg, reg)
	h := &blockingHandler{entered: make(chan struct{}), release: make(chan struct{})}
	l := newTestLoader(t, Config{DeadlineGranularity: time.Millisecond}, slog.New(h))
	l.drainWait = 100 * time.Millisecond
	pr, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, src)})
	if err != nil {
		t.Fatal(err)
	}
	p := pr.(*Provider)
	// The trap discards the instance of Load: the next call makes one.
	if _, err := call(p, newFakeEnv(p, 5), "trap", nil, time.Second); err == nil {
		t.Fatal("trap answered no error")
	}
	h.armed.Store(true)
	done := make(chan error, 1)
	go func() {
		_, err := call(p, newFakeEnv(p, 5), "trap", nil, time.Hour)
		done <- err
	}()
	<-h.entered // the new instance's start function is in aios.log
	if err := l.Close(); err == nil {
		// Leave the start function blocked: resumed, it would run code
		// the closed runtime has freed.
		t.Fatal("Loader.Close released the runtimes (nil error) while a call's start function was still running")
	}
	close(h.release)
	if err := <-done; abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("the call whose instance was starting answered %v, want Unavailable", err)
	}
}
