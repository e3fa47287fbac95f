package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestVirtualClockDoesNotWrap: without the Clock grant a guest's sleep
// (poll_oneoff) moves its virtual monotonic clock past the sleep's end at
// once; a sleep of nearly 2⁶³ ns (Go's time.Sleep of a "for ever"
// duration, a timer at math.MaxInt64) moved it past the int64 range, so
// the clock wrapped to -2⁶³ and went backwards — for every instance of the
// provider, the calls of other callers after it included (the clock is the
// provider's). It stops short of the wrap, on both engines: a clock
// reading is never below the one before it, nor negative.
func TestVirtualClockDoesNotWrap(t *testing.T) {
	g := newEdgeGuest(`{"format":1,"provider":{"id":"org.probe.vclock"},"tools":[{"name":"t"}]}`)
	ok := g.seg(`{"value":1}`)
	imports := `(import "wasi_snapshot_preview1" "clock_time_get" (func $ct (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  `
	// A relative sleep on the monotonic clock (subscription at 256), then
	// a reading (at 0), twice; a reading below the one before it, or
	// negative, traps.
	g.call = fmt.Sprintf(`(local $c1 i64)
    (i64.store (i32.const 256) (i64.const 7))
    (i32.store8 (i32.const 264) (i32.const 0))
    (i32.store (i32.const 272) (i32.const 1))
    (i64.store (i32.const 280) (i64.const 0x7ffffffffffffff0))
    (i64.store (i32.const 288) (i64.const 0))
    (i32.store16 (i32.const 296) (i32.const 0))
    (drop (call $ct (i32.const 1) (i64.const 0) (i32.const 0)))
    (local.set $c1 (i64.load (i32.const 0)))
    (drop (call $poll (i32.const 256) (i32.const 320) (i32.const 1) (i32.const 384)))
    (drop (call $ct (i32.const 1) (i64.const 0) (i32.const 0)))
    (if (i64.lt_s (i64.load (i32.const 0)) (local.get $c1)) (then unreachable))
    (local.set $c1 (i64.load (i32.const 0)))
    (drop (call $poll (i32.const 256) (i32.const 320) (i32.const 1) (i32.const 384)))
    (drop (call $ct (i32.const 1) (i64.const 0) (i32.const 0)))
    (if (i64.lt_s (i64.load (i32.const 0)) (local.get $c1)) (then unreachable))
    (if (i64.lt_s (i64.load (i32.const 0)) (i64.const 0)) (then unreachable))
    (i64.const %d)`, ok)
	wat := strings.Replace(g.wat(), `(memory (export "memory") 2)`, imports+`(memory (export "memory") 2)`, 1)
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 2}, wat)
			env := newFakeEnv(p, 3)
			for i := range 3 {
				if v, err := call(p, env, "t", map[string]any{}, 10*time.Second); err != nil || v != int64(1) {
					t.Fatalf("call %d: %v, %v; want 1 (the clock went backwards: %v)", i, v, err, abi.CodeOf(err) == abi.ProviderCrashed)
				}
			}
		})
	}
}
