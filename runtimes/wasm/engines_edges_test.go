package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// probeOutcome loads g (with proc_exit and fd_write imported) and calls
// its tool once on engine e.
func probeOutcome(t *testing.T, e edgeEngine, g *edgeGuest, d time.Duration) edgeOutcome {
	t.Helper()
	src := strings.Replace(g.wat(), "(memory (export", `(import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export`, 1)
	p := edgeLoad(t, e, Config{PoolSize: 1}, src)
	v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, d)
	o := edgeOutcome{v: v, code: abi.CodeOf(err), inst: edgeInstances(p)}
	if err != nil {
		o.msg = err.Error()
	}
	return o
}

// A trap reads the same on both engines (wasmtime_engine.go, trapNames:
// "wasmtime's trap codes in the words wazero uses"): a call_indirect
// through a null or missing table entry was "invalid table access" on
// wazero and "indirect call to a null table entry" / "table out of bounds"
// on wasmtime, a stack overflow "wasm error: stack overflow" there and
// "stack overflow" on wazero; a guest's exit lacked wazero's pointer to its stderr in the
// log.
func TestTrapWordsAsWazero(t *testing.T) {
	for _, tc := range []struct{ name, call, extra, want string }{
		{"null table entry", `(call_indirect (type $t) (i32.const 1))`,
			`(type $t (func (result i64))) (table 4 funcref) (elem (i32.const 0) $f) (func $f (result i64) (i64.const 0))`,
			"t: the guest trapped: wasm error: invalid table access"},
		{"past the table", `(call_indirect (type $t) (i32.const 100))`, `(type $t (func (result i64))) (table 4 funcref)`,
			"t: the guest trapped: wasm error: invalid table access"},
		{"type mismatch", `(call_indirect (type $t) (i32.const 0))`,
			`(type $t (func (result i64))) (table 4 funcref) (elem (i32.const 0) $g) (func $g (result i32) (i32.const 0))`,
			"t: the guest trapped: wasm error: indirect call type mismatch"},
		{"stack overflow", `(drop (call $rec (i32.const 0))) (i64.const 0)`,
			`(func $rec (param i32) (result i32) (call $rec (i32.add (local.get 0) (i32.const 1))))`,
			"t: the guest trapped: stack overflow"},
		{"proc_exit", `(call $exit (i32.const 3)) (i64.const 0)`, ``,
			"t: the guest exited with code 3 (a Go guest exits with 2 on panic or out of memory; see the host log for its stderr)"},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				g.call, g.extra = tc.call, tc.extra
				o := probeOutcome(t, e, g, 20*time.Second)
				if o.code != abi.ProviderCrashed || o.msg != "ProviderCrashed: "+tc.want || o.inst != 0 {
					t.Fatalf("got %s %q, %d instances; want ProviderCrashed %q, discarded", o.code, o.msg, o.inst, tc.want)
				}
			})
		}
	}
}

// A guest whose aios_alloc fails while the host hands it a call's input
// fails the call in the same words on both engines (wazero's
// instance.call): wasmtime left out "the guest trapped: " and said "ran
// past its deadline in aios_alloc".
func TestInputAllocFailureAsWazero(t *testing.T) {
	for _, tc := range []struct {
		name, alloc string
		code        abi.ErrorCode
		want        string
	}{
		{"returns 0", `(return (i32.const 0))`, abi.ProviderCrashed, "t: the guest trapped: aios_alloc(200042) returned 0 (the guest is out of memory)"},
		{"outside memory", `(return (i32.const 131000))`, abi.ProviderCrashed, "t: the guest trapped: aios_alloc(200042) returned [131000, 331042), outside the guest's 131072-byte memory"},
		{"traps", `unreachable`, abi.ProviderCrashed, "t: the guest trapped: aios_alloc(200042): wasm error: unreachable"},
		{"loops", `(loop $l (br $l))`, abi.Timeout, "t ran past its deadline; the guest was interrupted"},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				ok := g.seg(`{"value":1}`)
				g.alloc = `(if (i32.ge_u (local.get $n) (i32.const 100000)) (then ` + tc.alloc + `))`
				g.call = fmt.Sprintf("(i64.const %d)", ok)
				p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
				_, err := call(p, newFakeEnv(p, 3), "t", map[string]any{"big": strings.Repeat("x", 200000)}, 300*time.Millisecond)
				if abi.CodeOf(err) != tc.code || err.Error() != string(tc.code)+": "+tc.want {
					t.Fatalf("got %v, want %s %q", err, tc.code, tc.want)
				}
			})
		}
	}
}

// A WASI call given a buffer outside guest memory (docs/abi.md §6): EFAULT
// on wazero, a trap on wasmtime, whose WASI preview 1 is its own (the
// difference is documented; this pins it). Before, docs/abi.md did not
// say, and a guest that got EFAULT on wazero crashed on wasmtime.
func TestWASIBadPointer(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			// 21: EFAULT; another answer traps with "unreachable".
			g.call = fmt.Sprintf(`(if (i32.ne (call $fd_write (i32.const 1) (i32.const 0x7ffffff0) (i32.const 1) (i32.const 520)) (i32.const 21))
      (then unreachable))
    (i64.const %d)`, g.seg(`{"value":"returned"}`))
			o := probeOutcome(t, e, g, 5*time.Second)
			switch e.name {
			case "wasmtime":
				if o.code != abi.ProviderCrashed || !strings.Contains(o.msg, "the guest trapped: Pointer out of bounds") {
					t.Fatalf("got %v %s %q, want the documented trap", o.v, o.code, o.msg)
				}
			default:
				if o.code != "" || o.v != "returned" {
					t.Fatalf("got %v %s %q, want fd_write to return EFAULT and the guest to go on", o.v, o.code, o.msg)
				}
			}
		})
	}
}

// recGuest's tool t recurses n frames deep in wasm and then calls itself
// through call_tool, returning the answer.
func recGuest(n int) string {
	g := newEdgeGuest(edgeReg)
	ptr, ln := pk(g.seg(`{"tool":"t","params":{}}`))
	g.extra = fmt.Sprintf(`(func $rec (param $n i32) (result i64)
    (if (result i64) (i32.eqz (local.get $n))
      (then (call $call_tool %s %s))
      (else (i64.add (call $rec (i32.sub (local.get $n) (i32.const 1))) (i64.const 0)))))`, ptr, ln)
	g.call = fmt.Sprintf(`(call $rec (i32.const %d))`, n)
	return g.wat()
}

// Deep recursion through call_tool: a guest that recurses most of its wasm
// stack and then calls itself, 40 levels deep (limits.max_call_depth may
// be 64), gets DepthExceeded on both engines. On wasmtime each nested call
// ran on the same thread's native stack with a fresh 512 KiB budget of its
// own, and the thread's stack overflowed: SIGSEGV, the host process died.
func TestNestedCallsDoNotShareStack(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 2}, recGuest(15000)) // about 430 KiB of wasmtime's 512 KiB
			_, err := call(p, newFakeEnv(p, 40), "t", map[string]any{}, 20*time.Second)
			if abi.CodeOf(err) != abi.DepthExceeded {
				t.Fatalf("got %v, want DepthExceeded", err)
			}
		})
	}
}
