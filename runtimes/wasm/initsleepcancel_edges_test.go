package wasm

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// sleepInitWAT is a guest granted Clock whose _initialize sleeps ms
// milliseconds through WASI poll_oneoff, in every instance, and whose
// aios_call traps (so that each call needs a new instance).
func sleepInitWAT(ms int) string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.sleepinit","capabilities":["Clock"]},"tools":[{"name":"t"}]}`)
	return fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s
%s  (func (export "_initialize")
    (i64.store (i32.const 256) (i64.const 7))
    (i32.store8 (i32.const 264) (i32.const 0))
    (i32.store (i32.const 272) (i32.const 1))
    (i64.store (i32.const 280) (i64.const %d))
    (i64.store (i32.const 288) (i64.const 0))
    (i32.store16 (i32.const 296) (i32.const 0))
    (drop (call $poll (i32.const 256) (i32.const 320) (i32.const 1) (i32.const 384))))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) unreachable)
)`, reg, bumpAlloc, int64(ms)*1e6, packedReg)
}

// TestNewInstanceSleepEndsAtCancel: a call that needs a new instance
// whose _initialize sleeps with a real clock ends at its caller's cancel,
// on both engines. On wazero the cancel marked the instance interrupted
// but the sleep went on to its end (or load_timeout), holding the caller,
// where the wasmtime engine's sleep saw the cancel.
func TestNewInstanceSleepEndsAtCancel(t *testing.T) {
	const sleep = 3 * time.Second
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{Clock: "real", LoadTimeout: 20 * time.Second}, sleepInitWAT(int(sleep/time.Millisecond)))
			// The load's instance serves the first call, which traps:
			// the next call needs a new instance.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			env := *newFakeEnv(p, 2)
			c := &abi.ToolCall{ID: "c1", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(time.Minute)}
			env.call = c
			if _, err := p.Call(context.Background(), c, &env); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("first call: %v, want ProviderCrashed (the guest traps)", err)
			}
			time.AfterFunc(200*time.Millisecond, cancel)
			start := time.Now()
			_, err := p.Call(ctx, c, &env)
			took := time.Since(start)
			if took >= sleep/2 {
				t.Errorf("a call whose new instance sleeps %v in _initialize, cancelled after 200ms: %v after %v, want it to end at once", sleep, err, took)
			}
			// Woken at the cancel, the start returns: the call is
			// Cancelled when the cancel is seen before the start ends
			// (wazero's guard hook, wasmtime's epoch check), else it
			// goes on into aios_call, which here traps.
			if c := abi.CodeOf(err); c != abi.Cancelled && c != abi.ProviderCrashed {
				t.Errorf("a call whose new instance sleeps in _initialize, cancelled after 200ms: %v, want Cancelled (or aios_call's trap)", err)
			}
		})
	}
}
