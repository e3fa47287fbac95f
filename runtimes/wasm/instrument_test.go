package wasm

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/tetratelabs/wazero"
)

// TestInstrumentedAndFallback runs the runaway-loop case in both
// interruption modes and checks the Go guests are instrumented.
func TestInstrumentedAndFallback(t *testing.T) {
	for _, mode := range []string{"instrumented", "wazero-checks"} {
		t.Run(mode, func(t *testing.T) {
			l := newTestLoader(t, Config{DeadlineGranularity: time.Millisecond}, nil)
			l.noInstrument = mode != "instrumented"
			p := load(t, l, buildWAT(t, basicWAT("org.test.modes", 2)))
			if p.instrumented != (mode == "instrumented") {
				t.Fatalf("instrumented = %v", p.instrumented)
			}
			env := newFakeEnv(p, 2)
			start := time.Now()
			if _, err := call(p, env, "loop", nil, 50*time.Millisecond); abi.CodeOf(err) != abi.Timeout {
				t.Fatalf("%v", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("interrupted after %v", d)
			}
			if v, err := call(p, env, "const", nil, time.Second); err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("%v %v", v, err)
			}
		})
	}
	l := newTestLoader(t, Config{}, nil)
	for _, g := range []string{"conformance", "image-resize"} {
		if p := load(t, l, builtGuest(t, g)); !p.instrumented {
			t.Errorf("%s fell back to wazero's checks", g)
		}
	}
}

// TestInstrumentKeepsBehaviour: calls through the renumbered function
// index space (call, call_indirect via an element segment, ref.func in a
// global, the start function, exports) still reach the right functions.
func TestInstrumentKeepsBehaviour(t *testing.T) {
	src := `(module
  (import "env" "f" (func $imp (param i32) (result i32)))
  (type $t (func (result i32)))
  (table 2 funcref)
  (elem (i32.const 0) $seven $eight)
  (global $g funcref (ref.func $eight))
  (global $s (mut i32) (i32.const 0))
  (memory (export "memory") 1)
  (func $seven (result i32) (i32.const 7))
  (func $eight (result i32) (i32.const 8))
  (func $start (global.set $s (i32.const 5)))
  (start $start)
  (func (export "run") (result i32)
    (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc (i32.add (local.get $acc) (call $seven)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 200000))))
    (i32.add (i32.add (local.get $acc) (call_indirect (type $t) (i32.const 1)))
      (i32.add (global.get $s) (call $imp (i32.const 1))))))`
	bin, err := os.ReadFile(buildWAT(t, src))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := instrument(bin)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, b := range [][]byte{bin, ib} {
		r := wazero.NewRuntime(ctx)
		_, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(func(x uint32) uint32 { return x + 100 }).Export("f").Instantiate(ctx)
		if err == nil {
			_, err = r.NewHostModuleBuilder("aios").NewFunctionBuilder().WithFunc(func() uint32 { return tickBudget }).Export(tickImport).Instantiate(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		m, err := r.Instantiate(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.ExportedFunction("run").Call(ctx)
		if err != nil || res[0] != 7*200000+8+5+101 {
			t.Fatalf("run = %v %v", res, err)
		}
		r.Close(ctx)
	}
}

func FuzzInstrument(f *testing.F) {
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	if b, err := os.ReadFile(buildWAT(f, basicWAT("org.test.fuzz", 2))); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 {
			return
		}
		ib, err := instrument(data)
		if err != nil {
			return
		}
		// A module wazero accepts must still be accepted after the rewrite.
		ctx := context.Background()
		r := wazero.NewRuntime(ctx)
		defer r.Close(ctx)
		if _, err := r.CompileModule(ctx, data); err != nil {
			return
		}
		if _, err := r.CompileModule(ctx, ib); err != nil {
			t.Fatalf("instrumented module no longer compiles: %v", err)
		}
	})
}

func BenchmarkInstrumentGoGuest(b *testing.B) {
	bin, err := os.ReadFile(builtGuest(b, "conformance"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(bin)))
	for b.Loop() {
		if _, err := instrument(bin); err != nil {
			b.Fatal(err)
		}
	}
}
