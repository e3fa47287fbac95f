package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestNonFunctionImportNamed: a module importing a memory, a table
// or a global (wasm-ld --import-memory makes env.memory, emscripten
// env.table) failed to load on wazero with "instantiate: module[env] not
// instantiated", naming neither the import nor what is wrong with it,
// while the wasmtime engine's check (and wazero's own for a function
// import) said the host offers only the functions of aios and
// wasi_snapshot_preview1. The load error names each such import, on both
// engines.
func TestNonFunctionImportNamed(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.imp"},"tools":[{"name":"go"}]}`)
	for _, tc := range []struct{ imports, memory, want string }{
		{`(import "env" "memory" (memory 2))`, `(export "memory" (memory 0))`, "env.memory"},
		{`(import "env" "__indirect_function_table" (table 1 funcref))`, `(memory (export "memory") 2)`, "env.__indirect_function_table"},
		{`(import "env" "__stack_pointer" (global (mut i32)))`, `(memory (export "memory") 2)`, "env.__stack_pointer"},
		{`(import "aios" "tick" (global i32))`, `(memory (export "memory") 2)`, "aios.tick"},
	} {
		src := fmt.Sprintf(`(module %s %s %s
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, tc.imports, tc.memory, d, reg)
		path := buildWAT(t, src)
		for engine, l := range probeLoaders(t, Config{}, nil) {
			t.Run(engine+"/"+tc.want, func(t *testing.T) {
				p, err := l.Load(context.Background(), abi.Source{Path: path})
				if err == nil {
					p.Close()
					t.Fatal("loaded")
				}
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "offers only the functions") {
					t.Fatalf("the load error does not name the import %s and why: %v", tc.want, err)
				}
				t.Log(err)
			})
		}
	}
}
