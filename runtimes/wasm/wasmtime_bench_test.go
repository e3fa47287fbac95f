//go:build wasmtime

package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	wt "github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aios-host/aios-host/abi"
)

type engineLoader interface {
	abi.Loader
	Close() error
	LoadBytes(ctx context.Context, src abi.Source, bin []byte) (abi.Provider, error)
}

func benchLoader(b *testing.B, engine, cacheDir string) engineLoader {
	var l engineLoader
	var err error
	opts := Options{Config: Config{CacheDir: cacheDir, PoolSize: 4}, Logger: slog.New(slog.DiscardHandler)}
	if engine == EngineWasmtime {
		l, err = NewWasmtimeLoader(opts)
	} else {
		l, err = NewLoader(opts)
	}
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkEngineCompile: compile the Go conformance guest (3.5 MB) with an
// empty cache, then instantiate and register (Load), per engine.
// Run with -benchtime=3x: each compile takes about a second.
func BenchmarkEngineCompile(b *testing.B) {
	bin, err := os.ReadFile(builtGuest(b, "conformance"))
	if err != nil {
		b.Fatal(err)
	}
	for _, engine := range Engines() {
		b.Run(engine, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l := benchLoader(b, engine, b.TempDir())
				p, err := l.LoadBytes(context.Background(), abi.Source{Path: "conformance.wasm"}, bin)
				if err != nil {
					b.Fatal(err)
				}
				p.Close()
				l.Close()
			}
		})
	}
}

// BenchmarkEngineCachedStart: Load of the same guest from a warm on-disk
// compile cache (a host restart): read/deserialize, instantiate, register.
func BenchmarkEngineCachedStart(b *testing.B) {
	bin, err := os.ReadFile(builtGuest(b, "conformance"))
	if err != nil {
		b.Fatal(err)
	}
	for _, engine := range Engines() {
		b.Run(engine, func(b *testing.B) {
			dir := b.TempDir()
			warm := benchLoader(b, engine, dir)
			p, err := warm.LoadBytes(context.Background(), abi.Source{Path: "conformance.wasm"}, bin)
			if err != nil {
				b.Fatal(err)
			}
			p.Close()
			warm.Close()
			b.ReportAllocs()
			for b.Loop() {
				l := benchLoader(b, engine, dir)
				p, err := l.LoadBytes(context.Background(), abi.Source{Path: "conformance.wasm"}, bin)
				if err != nil {
					b.Fatal(err)
				}
				p.Close()
				l.Close()
			}
		})
	}
}

// BenchmarkEngineInstantiate: one more instance of a loaded guest
// (instantiate + _initialize), as the pool does under load.
func BenchmarkEngineInstantiate(b *testing.B) {
	path := builtGuest(b, "conformance")
	for _, engine := range Engines() {
		b.Run(engine, func(b *testing.B) {
			l := benchLoader(b, engine, os.TempDir()+"/aios-wasm-test/cache")
			defer l.Close()
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				switch p := p.(type) {
				case *Provider:
					inst, err := p.newInstance(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					p.closeInstance(inst)
				case *wtProvider:
					inst, err := p.newInstance(context.Background(), time.Time{})
					if err != nil {
						b.Fatal(err)
					}
					p.closeInstance(inst)
				}
			}
		})
	}
}

// BenchmarkWasmtimeInterrupt: a guest loop of 1e6 iterations under epoch
// interruption, fuel metering, and neither: what each deadline mechanism
// costs in guest code.
func BenchmarkWasmtimeInterrupt(b *testing.B) {
	wasmBin, err := wt.Wat2Wasm(`(module (func (export "loop") (param i32) (result i32) (local i32)
		(block (loop (br_if 1 (i32.ge_u (local.get 1) (local.get 0)))
		(local.set 1 (i32.add (local.get 1) (i32.const 1))) (br 0))) (local.get 1)))`)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"none", "epoch", "fuel"} {
		b.Run(mode, func(b *testing.B) {
			cfg := wt.NewConfig()
			cfg.SetEpochInterruption(mode == "epoch")
			cfg.SetConsumeFuel(mode == "fuel")
			engine := wt.NewEngineWithConfig(cfg)
			store := wt.NewStore(engine)
			if mode == "epoch" {
				store.SetEpochDeadline(1 << 40)
			}
			if mode == "fuel" {
				_ = store.SetFuel(1 << 62)
			}
			mod, err := wt.NewModule(engine, wasmBin)
			if err != nil {
				b.Fatal(err)
			}
			inst, err := wt.NewInstance(store, mod, nil)
			if err != nil {
				b.Fatal(err)
			}
			f := inst.GetFunc(store, "loop")
			for b.Loop() {
				if _, err := f.Call(store, int32(1_000_000)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEngineHostCall: one call of a guest that reads the clock 1000
// times (WASI clock_time_get, defined by the host on both engines), so
// ns/op ÷ 1000 is about one host call. On wasmtime each host call looked
// the guest's memory up by name, an Extern with a finalizer each time:
// 2.8–3.6 µs a reading, most of it in runtime.SetFinalizer; 0.87 µs since
// callerMem uses the instance's memory.
func BenchmarkEngineHostCall(b *testing.B) {
	g := newEdgeGuest(edgeReg)
	ok := g.seg(`{"value":1}`)
	g.call = fmt.Sprintf(`(local.set $a (i64.const 1000))
    (loop $l
      (drop (call $clock (i32.const 1) (i64.const 0) (i32.const 64)))
      (local.set $a (i64.sub (local.get $a) (i64.const 1)))
      (br_if $l (i64.ne (local.get $a) (i64.const 0))))
    (i64.const %d)`, ok)
	src := strings.Replace(g.wat(), "(memory (export", `(import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (memory (export`, 1)
	benchToolT(b, buildWAT(b, src))
}

// BenchmarkEngineHostCallAnswer: one call of a guest that makes 100
// space_read host calls (each answered through the guest's aios_alloc), so
// ns/op ÷ 100 is about one request/response host call.
func BenchmarkEngineHostCallAnswer(b *testing.B) {
	g := newEdgeGuest(edgeReg)
	ok := g.seg(`{"value":1}`)
	reqPtr, reqN := pk(g.seg(`{"space":"s","id":"x"}`))
	g.call = fmt.Sprintf(`(global.set $heap (i32.const 65536))
    (local.set $a (i64.const 100))
    (loop $l
      (drop (call $space_read %s %s))
      (local.set $a (i64.sub (local.get $a) (i64.const 1)))
      (br_if $l (i64.ne (local.get $a) (i64.const 0))))
    (i64.const %d)`, reqPtr, reqN, ok)
	benchToolT(b, buildWAT(b, g.wat()))
}

// benchToolT calls tool "t" of the module at path on each engine.
func benchToolT(b *testing.B, path string) {
	for _, engine := range Engines() {
		b.Run(engine, func(b *testing.B) {
			l := benchLoader(b, engine, b.TempDir())
			defer l.Close()
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			env := newFakeEnv(p, 3)
			b.ReportAllocs()
			for b.Loop() {
				if v, err := call(p, env, "t", map[string]any{}, time.Minute); err != nil || v == nil {
					b.Fatalf("%v, %v", v, err)
				}
			}
		})
	}
}
