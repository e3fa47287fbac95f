package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// slowStartWAT is slowInitWAT with the loop in the module's start
// function: the first instance (the load's) starts at once, every later
// one (the provider's virtual clock has moved on) loops.
func slowStartWAT() string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.slowstart"},"tools":[{"name":"t"}]}`)
	return fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $ct (param i32 i64 i32) (result i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s
%s  (start $s)
  (func $s
    (drop (call $ct (i32.const 1) (i64.const 1) (i32.const 512)))
    (if (i64.ge_u (i64.load (i32.const 512)) (i64.const 2)) (then (loop $l (br $l)))))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) unreachable)
)`, reg, bumpAlloc, packedReg)
}

// TestStartFunctionStoppedByCallSaysWhy: a call that needs a new instance
// whose start function runs past the call's deadline, or is stopped by its
// caller's cancel, is Timeout or Cancelled, as the same call stopped in
// _initialize (TestWazeroNewInstanceKeepsDeadline); it was Unavailable,
// "instantiate: start function[N] failed: interrupted by the host
// watchdog", which told the caller the provider was down.
func TestStartFunctionStoppedByCallSaysWhy(t *testing.T) {
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
			l := newTestLoader(t, Config{LoadTimeout: loadTimeout}, nil)
			p := load(t, l, buildWAT(t, slowStartWAT()))
			if _, err := call(p, newFakeEnv(p, 2), "t", map[string]any{}, 5*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("first call: %v, want ProviderCrashed (the guest traps)", err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			c := &abi.ToolCall{ID: "c2", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(tc.dl)}
			env := *newFakeEnv(p, 2)
			env.call = c
			start := time.Now()
			_, err := p.Call(ctx, c, &env)
			took := time.Since(start)
			if abi.CodeOf(err) != tc.want {
				t.Errorf("call needing a new instance whose start function loops: %v (after %v), want %s", err, took, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), "start function") {
				t.Errorf("error %q does not say the start function was stopped", err)
			}
			if took >= loadTimeout {
				t.Errorf("the call took %v: the start function ran to load_timeout (%v)", took, loadTimeout)
			}
		})
	}
}
