package wasm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A module whose constant expressions use the extended-const proposal
// (i32.add in a global's initializer, a data or element segment's offset)
// is refused on both engines, in wazero's words: wasmtime, which has the
// feature on and no C API to turn it off, loaded and ran it, so a file
// that worked on wasmtime failed on wazero, the default engine.
func TestExtendedConstAsWazero(t *testing.T) {
	for _, tc := range []struct{ name, extra, call, want string }{
		{"global", `(global $x i32 (i32.add (i32.const 1) (i32.const 2)))`, `(i64.const 0)`,
			`invalid WebAssembly module: global[2]: i32.add is not supported in a constant expression as feature "extended-const" is disabled`},
		{"global i64", `(global $x i64 (i64.mul (i64.const 1) (i64.const 2)))`, `(i64.const 0)`,
			`invalid WebAssembly module: global[2]: i64.mul is not supported in a constant expression as feature "extended-const" is disabled`},
		{"data offset", `(data (offset (i32.sub (i32.const 40000) (i32.const 8))) "x")`, `(i64.const 0)`,
			`is not supported in a constant expression as feature "extended-const" is disabled`},
		{"element offset", `(table 2 funcref) (elem (offset (i32.add (i32.const 0) (i32.const 1))) $f) (func $f)`, `(i64.const 0)`,
			`is not supported in a constant expression as feature "extended-const" is disabled`},
		{"plain constants load", `(global $x i32 (i32.const 3)) (table 2 funcref) (elem (i32.const 1) $f) (func $f)`, "", ""},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				ok := g.seg(`{"value":1}`)
				g.extra = tc.extra
				g.call = tc.call
				if g.call == "" {
					g.call = fmt.Sprintf("(i64.const %d)", ok)
				}
				dir := t.TempDir()
				wat := filepath.Join(dir, "m.wat")
				if err := os.WriteFile(wat, []byte(g.wat()), 0o644); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "m.wasm")
				if b, err := exec.Command("wat2wasm", "--enable-extended-const", wat, "-o", out).CombinedOutput(); err != nil {
					t.Fatalf("wat2wasm: %v %s", err, b)
				}
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: out})
				if tc.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					if v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
						t.Fatalf("call: %v %v", v, err)
					}
					return
				}
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				t.Log(err)
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %q\nwant it to contain %q", err, tc.want)
				}
			})
		}
	}
}
