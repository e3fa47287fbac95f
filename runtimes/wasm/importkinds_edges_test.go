package wasm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A module importing a memory, table or global is refused in the same words
// on both engines: wazero's check names the import's kind ("imports the
// memory env.memory") and, for a memory, how to link the guest instead,
// where the wasmtime engine's said only "imports env.memory, but the host
// offers only the functions …", leaving the author of a guest linked with
// --import-memory without the hint.
func TestNonFunctionImportKindOnBothEngines(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.imp"},"tools":[{"name":"go"}]}`)
	const offers = ", but the host offers only the functions of the modules aios and wasi_snapshot_preview1"
	for _, tc := range []struct{ imports, memory, want string }{
		{`(import "env" "memory" (memory 2))`, `(export "memory" (memory 0))`,
			"imports the memory env.memory" + offers + ` (a guest defines its memory and exports it as "memory": link without --import-memory)`},
		{`(import "env" "__indirect_function_table" (table 1 funcref))`, `(memory (export "memory") 2)`,
			"imports the table env.__indirect_function_table" + offers},
		{`(import "aios" "tick" (global i32))`, `(memory (export "memory") 2)`,
			"imports the global aios.tick" + offers},
	} {
		src := fmt.Sprintf(`(module %s %s %s
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, tc.imports, tc.memory, d, reg)
		path := buildWAT(t, src)
		for _, e := range edgeEngines {
			t.Run(e.name+"/"+strings.Fields(tc.want)[2], func(t *testing.T) {
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
