package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAllocTrapsDeliveringAnswer: a guest whose aios_alloc traps
// when the host delivers a host call's answer failed the call with
// "aios.space_read: delivering the 68-byte answer: wasm error:
// unreachable", not saying that the guest's allocator trapped (it did
// when the allocator returned a pointer outside memory). It names
// aios_alloc, on every engine; the instance is discarded and the next
// call is served by a fresh one.
func TestAllocTrapsDeliveringAnswer(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.alloctrap"},"tools":[{"name":"boom"},{"name":"fine"}]}`)
	d2, ok := watData(4096, `{"value":{"ok":true}}`)
	req, packed := watData(4200, `{"id":"sha256:00"}`)
	src := fmt.Sprintf(`(module
  (import "aios" "space_read" (func $space_read (param i32 i32) (result i64)))
  (memory (export "memory") 2)
  (global $armed (mut i32) (i32.const 0))
  %s %s %s
  (func (export "aios_alloc") (param i32) (result i32)
    (if (global.get $armed) (then unreachable))
    (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    ;; "boom" when the byte after "tool":" is 'b'
    (if (i32.eq (i32.load8_u offset=0 (call $find (local.get $p) (local.get $n))) (i32.const 0x62)) (then
      (global.set $armed (i32.const 1))
      (drop (call $space_read (i32.const %d) (i32.const %d)))))
    (i64.const %d))
  (func $find (param $p i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done (loop $scan
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
      (if (i64.eq (i64.load (i32.add (local.get $p) (local.get $i))) (i64.const 0x223a226c6f6f7422))
        (then (return (i32.add (i32.add (local.get $p) (local.get $i)) (i32.const 8)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    (i32.const 0)))`, d, d2, req, reg, packed>>32, uint32(packed), ok)
	path := buildWAT(t, src)
	for engine, l := range probeLoaders(t, Config{PoolSize: 1}, nil) {
		t.Run(engine, func(t *testing.T) {
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			env := newFakeEnv(p, 2)
			_, err = call(p, env, "boom", map[string]any{}, 5*time.Second)
			if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "space_read") || !strings.Contains(err.Error(), "answer: aios_alloc(") {
				t.Fatalf("got %v, want ProviderCrashed naming aios.space_read and the aios_alloc that trapped delivering its answer", err)
			}
			t.Log(err)
			if v, err := call(p, env, "fine", map[string]any{}, 5*time.Second); err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("the call after: %v %v", v, err)
			}
		})
	}
}
