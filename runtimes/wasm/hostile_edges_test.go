package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// probeLoaders returns one loader per engine compiled in.
func probeLoaders(t *testing.T, cfg Config, logger *slog.Logger) map[string]abi.Loader {
	out := map[string]abi.Loader{}
	for _, e := range Engines() {
		c := cfg
		if c.CacheDir == "" {
			c.CacheDir = t.TempDir()
		}
		l, err := NewEngineLoader(e, Options{Config: c, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.(interface{ Close() error }).Close() })
		out[e] = l
	}
	return out
}

// reentrantAllocWAT is a guest whose aios_alloc itself makes a host call
// (space_read with a request outside memory, answered with an error the
// host must deliver through aios_alloc again), nesting up to depth times.
// where says who makes the first host call: "call" (aios_call),
// "init" (_initialize) or "start" (the start function).
func reentrantAllocWAT(id string, depth int, where string) string {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"`+id+`"},"tools":[{"name":"go"}]}`)
	d2, ok := watData(4096, `{"value":{"ok":true}}`)
	first := `(drop (call $space_read (i32.const 0x7fff0000) (i32.const 10)))`
	var callBody, extra string
	switch where {
	case "call":
		callBody = first
	case "init":
		extra = `(func (export "_initialize") ` + first + `)`
	case "start":
		extra = `(func $st ` + first + `) (start $st)`
	}
	return fmt.Sprintf(`(module
  (import "aios" "space_read" (func $space_read (param i32 i32) (result i64)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  (global $depth (mut i32) (i32.const 0))
  %s %s
  (func $alloc (export "aios_alloc") (param $n i32) (result i32)
    (local $p i32)
    (if (i32.lt_u (global.get $depth) (i32.const %d)) (then
      (global.set $depth (i32.add (global.get $depth) (i32.const 1)))
      (drop (call $space_read (i32.const 0x7fff0000) (i32.const 10)))
      (global.set $depth (i32.sub (global.get $depth) (i32.const 1)))))
    (local.set $p (global.get $heap))
    (global.set $heap (i32.and (i32.add (i32.add (local.get $p) (local.get $n)) (i32.const 7)) (i32.const -8)))
    (if (i32.gt_u (global.get $heap) (i32.const 131072)) (then (global.set $heap (i32.const 65536)) (return (i32.const 65536))))
    (local.get $p))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    %s
    (i64.const %d))
  %s
)`, d, d2, depth, reg, callBody, ok, extra)
}

// TestReentrantAlloc: a guest's aios_alloc that calls a host import
// (which the host answers through aios_alloc again) killed the whole host
// process on wazero with "goroutine stack exceeds 1000000000-byte limit":
// the engine's call of aios_alloc is not reentrant. Now the import traps.
func TestReentrantAlloc(t *testing.T) {
	for engine, l := range probeLoaders(t, Config{PoolSize: 1}, nil) {
		for _, depth := range []int{1, 1 << 30} {
			t.Run(fmt.Sprintf("%s/call/%d", engine, depth), func(t *testing.T) {
				p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, reentrantAllocWAT("org.test.reent", depth, "call"))})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				env := newFakeEnv(p, 5)
				_, err = call(p, env, "go", map[string]any{}, 5*time.Second)
				if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "aios_alloc") {
					t.Fatalf("got %v, want ProviderCrashed naming aios_alloc", err)
				}
			})
		}
		for _, where := range []string{"init", "start"} {
			t.Run(engine+"/"+where, func(t *testing.T) {
				p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, reentrantAllocWAT("org.test.reent", 1<<30, where))})
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				t.Log(err)
				if !strings.Contains(err.Error(), "aios_alloc") {
					t.Fatalf("unclear load error: %v", err)
				}
			})
		}
	}
}

// TestStartFunctionLogBounded: aios.log from a start function (before
// there is an instance) was logged whole and outside the output budget: a
// 1 MiB message a call, 64 calls, reached the host log as 64 MiB.
func TestStartFunctionLogBounded(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.startlog"},"tools":[{"name":"go"}]}`)
	src := fmt.Sprintf(`(module
  (import "aios" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 17)
  %s
  (func $st (local $i i32)
    (loop $l
      (call $log (i32.const 2) (i32.const 0) (i32.const 0x100000))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 64)))))
  (start $st)
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, d, reg)
	for _, e := range Engines() {
		t.Run(e, func(t *testing.T) {
			logs := &countingHandler{}
			l := probeLoaders(t, Config{}, slog.New(logs))[e]
			p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, src)})
			if err != nil {
				t.Fatal(err)
			}
			p.Close()
			if b := logs.bytes.Load(); b > 70<<10 {
				t.Fatalf("the start function's aios.log put %d bytes in the host log (budget 64 KiB/s, lines cut at 4 KiB)", b)
			}
		})
	}
}
