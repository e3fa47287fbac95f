package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A module whose instantiation fails says where, in one line and the same
// words on both engines: wasmtime said only "instantiate: wasm error:
// unreachable" (or "out of bounds memory access"), naming neither the
// start function that trapped nor the data segment that did not fit, and
// a proc_exit there read "Exited with i32 exit status 3" where wazero says
// "module closed with exit_code(3)"; wazero named the start function by
// its index in the rewritten module (one past: the rewrite adds an
// import) and went on with a multi-line wasm stack trace.
func TestInstantiateFailureNamed(t *testing.T) {
	exit := `(import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))`
	for _, tc := range []struct {
		name, imports, extra string
		want                 []string // each engine's error contains them all
	}{
		{"start traps", "", `(start $s) (func $s unreachable)`,
			[]string{": instantiate: start function[8] failed: wasm error: unreachable"}},
		{"start reads past memory", "", `(start $s) (func $s (drop (i32.load (i32.const 0x7ffffff0))))`,
			[]string{": instantiate: start function[8] failed: wasm error: out of bounds memory access"}},
		{"start in a deeper call", "", `(start $s) (func $s (call $d)) (func $d unreachable)`,
			[]string{": instantiate: start function[8] failed: wasm error: unreachable"}},
		{"start exits", exit, `(start $s) (func $s (call $exit (i32.const 3)))`,
			[]string{": instantiate: module closed with exit_code(3)"}},
		{"data segment past memory", "", `(data (i32.const 200000) "abc")`,
			[]string{": instantiate: ", "data", "out of bounds memory access"}},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				g.call, g.extra = "(i64.const 0)", tc.extra
				src := strings.Replace(g.wat(), "(memory (export", tc.imports+"\n  (memory (export", 1)
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, src)})
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q\nwant it to contain %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error of several lines: %q", err)
				}
			})
		}
	}
}
