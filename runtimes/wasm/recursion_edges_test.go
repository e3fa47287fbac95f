package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// treeWAT is a guest whose only tool runs f(depth), where f(n) calls
// f(n-1) twice: 2^depth calls, no loop anywhere, and never deeper than
// depth frames (no stack overflow ends it). indirect makes the recursion
// go through call_indirect.
func treeWAT(id string, depth int, indirect bool) string {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"`+id+`"},"tools":[{"name":"tree"}]}`)
	d2, ok := watData(4096, `{"value":{"ok":true}}`)
	rec := `(call $f (i32.sub (local.get $n) (i32.const 1)))`
	if indirect {
		rec = `(call_indirect (type $t) (i32.sub (local.get $n) (i32.const 1)) (i32.const 0))`
	}
	return fmt.Sprintf(`(module
  (type $t (func (param i32)))
  (memory (export "memory") 2)
  (table 1 funcref)
  (elem (i32.const 0) $f)
  %s %s
  (func $f (type $t) (param $n i32)
    (if (local.get $n) (then %s %s)))
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64)
    (call $f (i32.const %d))
    (i64.const %d)))`, d, d2, rec, rec, reg, depth, ok)
}

// TestRecursionWithoutLoopInterrupted: the instrumentation checks
// $tick at loop headers only, on the reasoning that straight-line code
// cannot run long without a loop and unbounded recursion ends in the
// stack limit. A tree recursion does neither: f(n) calling f(n-1) twice
// runs 2^n calls no more than n frames deep. Its call ran past its
// deadline until the guest finished (for ever at a large n), never
// returning to Go, so it also stalled the host's garbage collector. It
// must end in Timeout near its deadline, on every engine, and leave the
// provider serving. (wazero's own checks, for a module the rewrite cannot
// read, are at loop headers only: such a module is not stopped there,
// docs/abi.md §6; TestGuestExportingTickRefused keeps a guest from
// choosing that mode.)
func TestRecursionWithoutLoopInterrupted(t *testing.T) {
	// 2^31 calls took 6 s before the fix (2^35: minutes, uninterrupted).
	const depth = 34
	for _, engine := range Engines() {
		for _, indirect := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/indirect=%v", engine, indirect), func(t *testing.T) {
				var l abi.Loader = newTestLoader(t, Config{DeadlineGranularity: time.Millisecond}, nil)
				if engine != EngineWazero {
					l = probeLoaders(t, Config{DeadlineGranularity: time.Millisecond}, nil)[engine]
				}
				p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, treeWAT("org.test.tree", depth, indirect))})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if wp, ok := p.(*Provider); ok && !wp.instrumented {
					t.Fatal("not instrumented")
				}
				env := newFakeEnv(p, 2)
				for i := range 2 { // the provider serves on after the first
					start := time.Now()
					_, err = call(p, env, "tree", map[string]any{}, 100*time.Millisecond)
					took := time.Since(start)
					if abi.CodeOf(err) != abi.Timeout || took > 3*time.Second {
						t.Fatalf("call %d: a loopless recursion of 2^%d calls under a 100 ms deadline: %v after %v, want Timeout at the deadline", i, depth+1, err, took)
					}
				}
				// The rewrite keeps the recursion's meaning: a shallow tree finishes.
				small, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, treeWAT("org.test.tree2", 10, indirect))})
				if err != nil {
					t.Fatal(err)
				}
				defer small.Close()
				if v, err := call(small, newFakeEnv(small, 2), "tree", map[string]any{}, 5*time.Second); err != nil || v.(map[string]any)["ok"] != true {
					t.Fatalf("a 2^11-call tree: %v %v", v, err)
				}
			})
		}
	}
}

// TestRecursionInStartFunctionStopped: the same recursion in a start
// function (no instance yet, only the load's context, which aios.tick
// reads) ends the load at runtimes.wasm.load_timeout, naming it; before
// the checks at function entries it held the load for minutes.
func TestRecursionInStartFunctionStopped(t *testing.T) {
	src := strings.Replace(treeWAT("org.test.treestart", 34, false), `(func (export "aios_alloc")`,
		`(func $st (call $f (i32.const 34))) (start $st) (func (export "aios_alloc")`, 1)
	for engine, l := range probeLoaders(t, Config{LoadTimeout: 300 * time.Millisecond}, nil) {
		t.Run(engine, func(t *testing.T) {
			start := time.Now()
			p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, src)})
			took := time.Since(start)
			if err == nil {
				p.Close()
				t.Fatalf("loaded after %v", took)
			}
			if took > 5*time.Second || !strings.Contains(err.Error(), "load_timeout") {
				t.Fatalf("load failed after %v with %v; want it stopped at the 300ms load_timeout, naming it", took, err)
			}
		})
	}
}
