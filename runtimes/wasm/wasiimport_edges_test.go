package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestWASIImportProblemsNamed: a module importing a function WASI
// preview 1 does not define, or one of its functions with another type
// (a C guest declaring fd_write by hand), failed at instantiation with
// wazero's "signature mismatch: i32_i32 != i32i32i32i32_i32", which says
// neither which type is the guest's nor which the host wants. The load
// error names the import, the guest's type and WASI's, as it does for the
// aios imports, on both engines.
func TestWASIImportProblemsNamed(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.wasiimp"},"tools":[{"name":"go"}]}`)
	for _, tc := range []struct{ imp, want string }{
		{`(import "wasi_snapshot_preview1" "path_frobnicate" (func (param i32) (result i32)))`,
			"imports wasi_snapshot_preview1.path_frobnicate, which WASI preview 1 does not define"},
		{`(import "wasi_snapshot_preview1" "fd_write" (func (param i32) (result i32)))`,
			"imports wasi_snapshot_preview1.fd_write with type (i32) -> (i32), want (i32, i32, i32, i32) -> (i32)"},
		{`(import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i32 i32) (result i32)))`,
			"imports wasi_snapshot_preview1.clock_time_get with type (i32, i32, i32) -> (i32), want (i32, i64, i32) -> (i32)"},
		{`(import "wasi_snapshot_preview1" "proc_exit" (func (param i32) (result i32)))`,
			"imports wasi_snapshot_preview1.proc_exit with type (i32) -> (i32), want (i32) -> ()"},
	} {
		src := fmt.Sprintf(`(module %s (memory (export "memory") 2) %s
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, tc.imp, d, reg)
		path := buildWAT(t, src)
		for engine, l := range probeLoaders(t, Config{}, nil) {
			t.Run(engine, func(t *testing.T) {
				p, err := l.Load(context.Background(), abi.Source{Path: path})
				if err == nil {
					p.Close()
					t.Fatalf("%s: loaded", tc.imp)
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("the load error does not name the file and say %q:\n%v", tc.want, err)
				}
			})
		}
	}
	// The WASI functions a guest imports with their own types still load.
	path := buildWAT(t, fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))
  (memory (export "memory") 2) %s
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, d, reg))
	for engine, l := range probeLoaders(t, Config{}, nil) {
		p, err := l.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatalf("%s: a module importing WASI functions with their types: %v", engine, err)
		}
		p.Close()
	}
}
