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
func TestProbeWasmtimeHostPanic(t *testing.T) {
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
