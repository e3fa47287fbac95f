package wasm

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A guest whose aios_alloc calls proc_exit while the host delivers a host
// call's answer ends its call as a guest exit on both engines, as wazero
// says it: wasmtime turned the exit into a trap of the host function and
// said "the guest trapped: aios.space_read: delivering the 70-byte
// answer: aios_alloc(70): module closed with exit_code(7)", a trap where
// the guest had exited.
func TestExitInAllocDuringHostCallIsExit(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			g.extra = `(global $exiting (mut i32) (i32.const 0))`
			g.alloc = `(if (global.get $exiting) (then (call $exit (i32.const 7))))`
			ptr, n := pk(g.seg(`{"space":"s1","id":"x"}`))
			g.call = `(global.set $exiting (i32.const 1))
    (call $space_read ` + ptr + ` ` + n + `)`
			o := probeOutcome(t, e, g, 20*time.Second)
			want := "ProviderCrashed: t: the guest exited with code 7 (a Go guest exits with 2 on panic or out of memory; see the host log for its stderr)"
			if o.code != abi.ProviderCrashed || o.msg != want || o.inst != 0 {
				t.Fatalf("got %s %q, %d instances\nwant %q, the instance discarded", o.code, o.msg, o.inst, want)
			}
		})
	}
}
