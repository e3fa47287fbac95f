//go:build wasmtime

package wasmtime

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
)

// featureCore compiles a core module's WAT with wat2wasm and flags.
func featureCore(t *testing.T, wat string, flags ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(in, []byte(wat), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("wat2wasm", append(flags, in, "-o", out)...).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// featureComponent exports run: func() -> u32 lifted from the core
// module's export "f" (no memory or realloc options).
func featureComponent(core []byte) []byte {
	return pcat([]byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00},
		psec(7, []byte{0x40, 0x00, 0x00, 0x79}),
		psec(1, core),
		psec(2, []byte{0x00, 0x00, 0x00}),
		psec(6, pcat([]byte{0x00, 0x00, 0x01, 0x00}, pstr("f"))),
		psec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}),
		psec(11, pcat([]byte{0x00}, pstr("run"), []byte{0x01, 0x00, 0x00})),
	)
}

// TestComponentFeaturesAsWazero (found by p164): the component engine
// was made with wasmtime's default features, where the core-module engine
// turns off those wazero lacks. A component whose core module declared a
// shared memory (threads) loaded, and its memory.grow went far past
// MemoryLimitPages (to 60,001 pages, 3.7 GiB, under a limit of 256: the
// store's limiter does not see shared memories); one with two memories, a
// 64-bit memory or relaxed SIMD ran, where the wazero component runtime,
// the default, refuses each at load. Each is refused on both engines now,
// naming the component; tail calls and extended constants, which the
// wazero component runtime takes, still run on both.
func TestComponentFeaturesAsWazero(t *testing.T) {
	const limit = 256
	for _, tc := range []struct {
		name, wat string
		flags     []string
		refused   bool
	}{
		{"shared", `(module (memory 1 65536 shared) (func (export "f") (result i32) (drop (memory.grow (i32.const 60000))) (memory.size)))`, []string{"--enable-threads"}, true},
		{"memory64", `(module (memory i64 1) (func (export "f") (result i32) (i32.const 7)))`, []string{"--enable-memory64"}, true},
		{"multimemory", `(module (memory 1) (memory $b 1) (func (export "f") (result i32) (i32.const 7)))`, []string{"--enable-multi-memory"}, true},
		{"relaxedsimd", `(module (func (export "f") (result i32) (i32x4.extract_lane 0 (i32x4.relaxed_trunc_f32x4_s (v128.const f32x4 7 2 3 4)))))`, []string{"--enable-relaxed-simd"}, true},
		{"tailcall", `(module (func $g (result i32) (i32.const 7)) (func (export "f") (result i32) (return_call $g)))`, []string{"--enable-tail-call"}, false},
		{"extconst", `(module (global i32 (i32.add (i32.const 3) (i32.const 4))) (func (export "f") (result i32) (global.get 0)))`, []string{"--enable-extended-const"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := featureComponent(featureCore(t, tc.wat, tc.flags...))
			name := tc.name + ".wasm"
			check := func(engine string, p abi.Provider, err error) {
				t.Helper()
				if tc.refused {
					if err == nil {
						v, cerr := callP(p, &fakeEnv{}, "run", map[string]any{}, 10*time.Second)
						p.Close()
						t.Fatalf("%s loaded it (run: %v, %v), want it refused at load", engine, v, cerr)
					}
					if !strings.Contains(err.Error(), name) {
						t.Fatalf("%s: %v\ndoes not name %s", engine, err, name)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", engine, err)
				}
				defer p.Close()
				if v, err := callP(p, &fakeEnv{}, "run", map[string]any{}, 10*time.Second); err != nil || v != int64(7) {
					t.Fatalf("%s: run = %v, %v; want 7", engine, v, err)
				}
			}
			pa, err := component.New(context.Background(), b, name, "", component.Options{MemoryLimitPages: limit})
			check("wazero", pa, err)
			l := newLoader(t, Options{MemoryLimitPages: limit})
			pb, err := l.LoadBytes(context.Background(), abi.Source{Path: name}, b)
			check("wasmtime", pb, err)
		})
	}
}
