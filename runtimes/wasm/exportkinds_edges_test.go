package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// An ABI name exported as a global or a table is said so on both engines:
// wazero's check knew only exported functions and memories and called
// such a name missing ("missing export(s) aios_alloc") although the
// author sees it exported, where the wasmtime engine said "export
// aios_alloc is a global, want a function".
func TestABIExportAsGlobalOrTableNamed(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"global", `(module (memory (export "memory") 1) (global (export "aios_alloc") i32 (i32.const 0))
			(func (export "aios_register") (result i64) (i64.const 0)) (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`,
			"export aios_alloc is a global, want a function"},
		{"table", `(module (memory (export "memory") 1) (table (export "aios_call") 1 funcref)
			(func (export "aios_alloc") (param i32) (result i32) (i32.const 0)) (func (export "aios_register") (result i64) (i64.const 0)))`,
			"export aios_call is a table, want a function"},
		{"memory is a global", `(module (memory 1) (global (export "memory") i32 (i32.const 0)) (func (export "aios_alloc") (param i32) (result i32) (i32.const 0))
			(func (export "aios_register") (result i64) (i64.const 0)) (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`,
			"export memory is a global, want a memory"},
	} {
		path := buildWAT(t, tc.src)
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				p, err := e.load(t, Config{}, abi.Source{Path: path})
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				if !strings.HasSuffix(err.Error(), "see docs/abi.md): "+tc.want) {
					t.Fatalf("load error %q\nwant it to end with %q", err, tc.want)
				}
			})
		}
	}
}
