//go:build wasmtime

package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// panicHandler is a slog handler that panics: a host function (aios.log)
// then panics inside a guest call.
type panicHandler struct{ slog.Handler }

func (panicHandler) Enabled(context.Context, slog.Level) bool { return true }
func (panicHandler) Handle(context.Context, slog.Record) error {
	panic("probe: the log handler panicked")
}

// A host function's panic under a guest call is re-raised to the caller
// and answered ProviderCrashed naming it, and the provider serves the next
// call (on a new instance). wasmtime-go keeps such a panic in the store's
// data and only its own Func.Call re-raises it; the guest calls that go
// around Func.Call (wtCall) must do the same. No defect: a guard.
func TestWasmtimeHostPanic(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	ok := g.seg(`{"value":1}`)
	msgPtr, msgN := pk(g.seg("hello"))
	g.call = fmt.Sprintf(`(call $log (i32.const 1) %s %s)
    (i64.const %d)`, msgPtr, msgN, ok)
	l := newWasmtimeTestLoader(t, Config{PoolSize: 1})
	p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, g.wat())})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := newFakeEnv(p, 3)
	env.logger = slog.New(panicHandler{})
	_, err = call(p, env, "t", map[string]any{}, time.Minute)
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "probe: the log handler panicked") {
		t.Fatalf("call whose host function panicked: %v, want ProviderCrashed naming the panic", err)
	}
	env.logger = slog.New(slog.DiscardHandler)
	if v, err := call(p, env, "t", map[string]any{}, time.Minute); err != nil || v == nil {
		t.Fatalf("next call: %v, %v", v, err)
	}
}

// A wasmtime provider keeps deadlines as the wazero one does (the epoch
// callback stops a guest at its deadline or its caller's cancel, a WASI
// sleep ends at the deadline, instances wait in the same pool), so it
// tells the host (abi.DeadlineKeeper), which then calls it on the caller's
// goroutine: host.CallWatched's goroutine, timer and channel, and the stack
// the fresh goroutine grew again on every call, were a fifth of a tool
// call (BenchmarkPipelineWASMEcho/wasmtime).
func TestWasmtimeKeepsDeadlines(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	ok := g.seg(`{"value":1}`)
	g.call = fmt.Sprintf(`(loop $l (br $l)) (i64.const %d)`, ok)
	for name, wat := range map[string]string{"loop": g.wat(), "sleep": sleepWAT()} {
		t.Run(name, func(t *testing.T) {
			l := newWasmtimeTestLoader(t, Config{Clock: "real"})
			p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, wat)})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if k, ok := p.(abi.DeadlineKeeper); !ok || !k.KeepsDeadlines() {
				t.Fatal("the wasmtime provider does not promise to keep deadlines (abi.DeadlineKeeper)")
			}
			tool := p.Describe().Tools[0].Name
			start := time.Now()
			_, err = call(p, newFakeEnv(p, 2), tool, map[string]any{}, 100*time.Millisecond)
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("%s held the call %v past a 100ms deadline", tool, took)
			}
			if err != nil && abi.CodeOf(err) != abi.Timeout {
				t.Fatalf("%s: %v, want a result or Timeout", tool, err)
			}
			if name == "loop" && abi.CodeOf(err) != abi.Timeout {
				t.Fatalf("loop: %v, want Timeout", err)
			}
		})
	}
}

// The layouts wtCall and wtMemData read (wasmtime-go's Func, Memory,
// Caller, Store, Trap and Error; wasmtime's wasmtime_func_t, _memory_t and
// _val_t) are those of the wasmtime-go in go.mod: when they change, both
// fall back to wasmtime-go's own calls, correct but slower, and this test
// says so.
func TestWasmtimeDirectLayouts(t *testing.T) {
	if !wtDirectOK {
		t.Fatal("wasmtime-go's types no longer have the layouts wasmtime_call.go reads; guest calls and memory reads go through the slow path")
	}
}
