package wasm

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Without the Random grant a guest's random_get reads "a deterministic
// source (wazero's default)" (docs/abi.md §6): on wazero every instance
// reads the same bytes from the start (math/rand seeded 42), on wasmtime
// the bytes were another stream (ChaCha8) that every instance of a
// provider shared, so the same module gave other values on the two engines
// and a fresh instance did not start over. Now wasmtime reads wazero's
// bytes, per instance.
func TestFakeRandomSameOnBothEngines(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	// The first call of an instance returns 4 random bytes as a decimal
	// string, the second traps (the instance is replaced).
	g.call = `(if (global.get $calls) (then unreachable))
    (global.set $calls (i32.const 1))
    (drop (call $random_get (i32.const 512) (i32.const 4)))
    (call $ret (i32.load (i32.const 512)))`
	g.extra = `(global $calls (mut i32) (i32.const 0))
  (func $ret (param $v i32) (result i64) (local $i i32)
    (local.set $i (i32.const 60019))
    (loop $d
      (i32.store8 (local.get $i) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (br_if $d (i32.ge_u (local.get $i) (i32.const 60010))))
    (i64.const 0x0000ea6000000016))
  (data (i32.const 60000) "{\"value\":\"0000000000\"}")`
	src := g.wat()
	src = src[:len("(module")] + `
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))` + src[len("(module"):]
	var first any
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, src)
			env := newFakeEnv(p, 3)
			v1, err := call(p, env, "t", map[string]any{}, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := call(p, env, "t", map[string]any{}, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("second call: %v, want the guest's trap", err)
			}
			v3, err := call(p, env, "t", map[string]any{}, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if v3 != v1 {
				t.Errorf("a fresh instance read %v, the first one %v: want the same bytes", v3, v1)
			}
			if first == nil {
				first = v1
			} else if v1 != first {
				t.Errorf("%s read %v, %s %v: want the same bytes", e.name, v1, edgeEngines[0].name, first)
			}
		})
	}
}
