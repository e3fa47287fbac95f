package wasm

import (
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// The engines' stack bounds differ, as docs/abi.md §6 ("Stack") says:
// wasmtime's 512 KiB of native stack holds about 16 000 frames of a small
// recursive function, wazero's 400 MB of host memory about 1.5 million. A
// recursion 8 000 deep runs on both; one 200 000 deep runs on wazero and is
// a stack overflow (ProviderCrashed, the instance discarded) on wasmtime.
func TestStackDepthPerEngine(t *testing.T) {
	for _, depth := range []int{8000, 200000} {
		for _, e := range edgeEngines {
			t.Run(fmt.Sprintf("%d/%s", depth, e.name), func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				ok := g.seg(`{"value":1}`)
				g.extra = `(func $rec (param $n i32) (result i32)
				  (if (result i32) (i32.eqz (local.get $n)) (then (i32.const 0))
				    (else (i32.add (i32.const 1) (call $rec (i32.sub (local.get $n) (i32.const 1)))))))`
				g.call = fmt.Sprintf(`(drop (call $rec (i32.const %d))) (i64.const %d)`, depth, ok)
				p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
				v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 20*time.Second)
				if depth > 16000 && e.name == "wasmtime" {
					if abi.CodeOf(err) != abi.ProviderCrashed || err.Error() != "ProviderCrashed: t: the guest trapped: stack overflow" || edgeInstances(p) != 0 {
						t.Fatalf("got %v %v, %d instances; want a stack overflow, the instance discarded", v, err, edgeInstances(p))
					}
					return
				}
				if err != nil || v != int64(1) {
					t.Fatalf("%d deep: %v %v", depth, v, err)
				}
			})
		}
	}
}
