//go:build wasmtime && unix

package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWasmtimeNewInstanceKeepsDeadline: since the wasmtime provider
// says it keeps deadlines (KeepsDeadlines), the host calls it without a
// watcher; but a call that needed a new instance ran its start
// (_initialize) under runtimes.wasm.load_timeout only: neither the call's
// deadline nor its caller's cancel stopped it, and the caller waited the
// whole load_timeout (10 s by default) where the host used to answer at
// the deadline (and wazero's newInstance derives from the call's context).
// A new instance now starts under the call's deadline and cancel too.
func TestWasmtimeNewInstanceKeepsDeadline(t *testing.T) {
	const loadTimeout = 3 * time.Second
	for _, tc := range []struct {
		name string
		want abi.ErrorCode
		ctx  func() (context.Context, context.CancelFunc)
		dl   time.Duration
	}{
		{"deadline", abi.Timeout, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, 200 * time.Millisecond},
		{"cancel", abi.Cancelled, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newWasmtimeTestLoader(t, Config{LoadTimeout: loadTimeout})
			p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, slowInitWAT())})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			// The registering instance serves this call and is dropped.
			if _, err := call(p, newFakeEnv(p, 2), "t", map[string]any{}, 5*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("first call: %v, want ProviderCrashed (the guest traps)", err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			c := &abi.ToolCall{ID: "c2", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(tc.dl)}
			env := *newFakeEnv(p, 2)
			env.call = c
			start := time.Now()
			_, err = p.Call(ctx, c, &env)
			took := time.Since(start)
			if abi.CodeOf(err) != tc.want {
				t.Errorf("call needing a new instance whose start loops: %v (after %v), want %s", err, took, tc.want)
			}
			if took >= loadTimeout {
				t.Errorf("the call took %v: the new instance's start ran to load_timeout (%v)", took, loadTimeout)
			}
		})
	}
}
