package wasm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// semanticsWAT exercises what the rewrite inserts code into or renumbers:
// loops with parameters and results, multi-value blocks, br_table out of
// nested loops, a function with thousands of locals, recursion (direct,
// mutual and through call_indirect), SIMD and select inside loops.
func semanticsWAT() string {
	var locals, sum strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&locals, "(local $l%d i64) ", i)
	}
	// Each local gets i*k, and the function returns their sum.
	sum.WriteString("(local.set $l0 (i64.const 0))\n")
	for i := 1; i < 3000; i++ {
		fmt.Fprintf(&sum, "(local.set $l%d (i64.add (local.get $l%d) (local.get $k)))\n", i, i-1)
	}
	sum.WriteString("(local.set $acc (i64.const 0))\n")
	for i := 0; i < 3000; i += 7 {
		fmt.Fprintf(&sum, "(local.set $acc (i64.add (local.get $acc) (local.get $l%d)))\n", i)
	}
	return `(module
  (type $ii (func (param i32) (result i32)))
  (table 4 funcref)
  (elem (i32.const 0) $fib $even $odd $collatz)
  (memory (export "memory") 1)

  ;; loop with parameters and results: sum 1..n carried on the stack
  (func (export "loopparams") (param $n i32) (result i32 i32)
    (local $i i32)
    (i32.const 0) (i32.const 0)
    (loop $l (param i32 i32) (result i32 i32)
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (drop)
      (i32.add (local.get $i))
      (local.get $i)
      (br_if $l (i32.lt_u (local.get $i) (local.get $n)))))

  ;; multi-value block and br_table out of two nested loops
  (func (export "brtable") (param $n i32) (result i32)
    (local $i i32) (local $j i32) (local $acc i32)
    (block $out
      (loop $outer
        (local.set $j (i32.const 0))
        (block $next
          (loop $inner
            (local.set $acc (i32.add (local.get $acc)
              (block $b (result i32)
                (block $c2
                  (block $c1
                    (block $c0
                      (br_table $c0 $c1 $c2 $next (i32.rem_u (i32.add (local.get $i) (local.get $j)) (i32.const 5))))
                    (br $b (i32.const 1)))
                  (br $b (i32.const 10)))
                (i32.const 100))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_if $inner (i32.lt_u (local.get $j) (local.get $n)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
        (br $outer)))
    (local.get $acc))

  (func $swap (param i32 i32) (result i32 i32) (local.get 1) (local.get 0))
  (func (export "multivalue") (param $n i32) (result i32)
    (local $a i32) (local $b i32) (local $i i32)
    (local.set $a (i32.const 1)) (local.set $b (i32.const 2))
    (loop $l
      (call $swap (local.get $a) (local.get $b))
      (local.set $b) (local.set $a)
      (local.set $a (i32.add (i32.mul (local.get $a) (i32.const 3)) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (i32.xor (local.get $a) (i32.shl (local.get $b) (i32.const 7))))

  (func (export "locals") (param $k i64) (result i64)
    ` + locals.String() + `(local $acc i64)
    ` + sum.String() + `
    (local.get $acc))

  (func $fib (type $ii) (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1)))
                     (call_indirect (type $ii) (i32.sub (local.get $n) (i32.const 2)) (i32.const 0))))))
  (func (export "fib") (param i32) (result i32) (call $fib (local.get 0)))

  (func $even (type $ii) (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n)) (then (i32.const 1))
      (else (call_indirect (type $ii) (i32.sub (local.get $n) (i32.const 1)) (i32.const 2)))))
  (func $odd (type $ii) (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n)) (then (i32.const 0))
      (else (call $even (i32.sub (local.get $n) (i32.const 1))))))
  (func (export "parity") (param i32) (result i32) (call $even (local.get 0)))

  (func $collatz (type $ii) (param $n i32) (result i32)
    (local $steps i32)
    (loop $l
      (if (i32.gt_u (local.get $n) (i32.const 1)) (then
        (local.set $n (select
          (i32.shr_u (local.get $n) (i32.const 1))
          (i32.add (i32.mul (local.get $n) (i32.const 3)) (i32.const 1))
          (i32.eqz (i32.and (local.get $n) (i32.const 1)))))
        (local.set $steps (i32.add (local.get $steps) (i32.const 1)))
        (br $l))))
    (local.get $steps))
  (func (export "collatz") (param $n i32) (result i32)
    (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc (i32.add (local.get $acc) (call_indirect (type $ii) (local.get $i) (i32.const 3))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.le_u (local.get $i) (local.get $n))))
    (local.get $acc))

  (func (export "simd") (param $n i32) (result i64)
    (local $v v128) (local $i i32)
    (local.set $v (v128.const i32x4 1 2 3 4))
    (loop $l
      (local.set $v (i32x4.add (i32x4.mul (local.get $v) (v128.const i32x4 3 5 7 11)) (i32x4.splat (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (i64.xor (i64x2.extract_lane 0 (local.get $v)) (i64x2.extract_lane 1 (local.get $v))))
)`
}

// TestInstrumentKeepsSemantics runs a guest before and after the
// rewrite, with the host's tick import handing out the normal budget and a
// budget of 1 (so that every check calls into the host), and compares
// every result. The rewrite inserts code at loop headers (with values on
// the loop's stack) and renumbers every call.
func TestInstrumentKeepsSemantics(t *testing.T) {
	bin, err := os.ReadFile(buildWAT(t, semanticsWAT()))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := instrument(bin)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		fn   string
		args []uint64
	}{
		{"loopparams", []uint64{1000}}, {"loopparams", []uint64{1}},
		{"brtable", []uint64{300}}, {"multivalue", []uint64{200001}},
		{"locals", []uint64{12345}}, {"fib", []uint64{24}}, {"parity", []uint64{100001}},
		{"collatz", []uint64{3000}}, {"simd", []uint64{70000}},
	}
	ctx := context.Background()
	run := func(b []byte, budget uint32) []string {
		r := wazero.NewRuntime(ctx)
		defer r.Close(ctx)
		ticks := 0
		if _, err := r.NewHostModuleBuilder("aios").NewFunctionBuilder().
			WithFunc(func() uint32 { ticks++; return budget }).Export(tickImport).Instantiate(ctx); err != nil {
			t.Fatal(err)
		}
		m, err := r.Instantiate(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range calls {
			res, err := m.ExportedFunction(c.fn).Call(ctx, c.args...)
			out = append(out, fmt.Sprintf("%s%v = %v %v", c.fn, c.args, res, err))
		}
		if budget == 1 && ticks < 100000 {
			t.Errorf("with a budget of 1 the guest called aios.tick %d times", ticks)
		}
		return out
	}
	want := run(bin, tickBudget)
	for _, budget := range []uint32{tickBudget, 1} {
		got := run(ib, budget)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("budget %d: instrumented %s, plain %s", budget, got[i], want[i])
			}
		}
	}
	t.Log(strings.Join(want, "\n"))
}
