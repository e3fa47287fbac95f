package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A guest that calls proc_exit while it loads (in _initialize, in
// aios_register) fails its load in the same words on both engines:
// wasmtime said "instantiate: _initialize: Exited with i32 exit status 3"
// and "aios_register trapped: Exited with i32 exit status 4" where wazero
// says "_initialize: module closed with exit_code(3)" and "aios_register
// trapped: module closed with exit_code(4)" (only an exit in the start
// function had been put in wazero's words, TestInstantiateFailureNamed).
func TestLoadExitReadsAsWazero(t *testing.T) {
	exit := `(import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))`
	for _, tc := range []struct{ name, extra, register, want string }{
		{"_initialize", `(func (export "_initialize") (call $exit (i32.const 3)))`, "",
			": _initialize: module closed with exit_code(3)"},
		{"aios_register", "", `(call $exit (i32.const 4))`,
			": aios_register trapped: module closed with exit_code(4)"},
		{"aios_abi_version", `(func (export "aios_abi_version") (result i32) (call $exit (i32.const 5)) (i32.const 1))`, "",
			": aios_abi_version failed: module closed with exit_code(5)"},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				g.call, g.extra = "(i64.const 0)", tc.extra
				src := strings.Replace(g.wat(), "(memory (export", exit+"\n  (memory (export", 1)
				src = strings.Replace(src, `(func (export "aios_register") (result i64) `, `(func (export "aios_register") (result i64) `+tc.register, 1)
				path := buildWAT(t, src)
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: path})
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				if want := path + tc.want; err.Error() != want {
					t.Errorf("error %q\nwant      %q", err, want)
				}
			})
		}
	}
}
