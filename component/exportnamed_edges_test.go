package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// TestExportedFunctionTypesNamed: a component exporting a function whose
// result is an enum it never exported (nor imported) by name ran on wazero
// while wasmtime refused to load it ("func not valid to be used as
// export": the Component Model wants an exported function's records,
// variants, enums and flags to be named). Both engines refuse it now, and
// the load error names the export and the type. The component is `jco
// parse` of
//
//	(component
//	  (core module $m (func (export "f") (param i32) (result i32) local.get 0))
//	  (core instance $i (instantiate $m))
//	  (type $e (enum "red" "green" "blue"))
//	  (func (export "color") (param "x" u32) (result $e) (canon lift (core func $i "f"))))
//
// With `(export $n "color" (type $e))` before the function and $n as its
// result it loads (the WIT samples all do so).
func TestExportedFunctionTypesNamed(t *testing.T) {
	const unnamed = "0061736d0d000100012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d0204010000000719026d030372656405677265656e04626c75654001017879000006070100000100016608060100000000010b0b010005636f6c6f7201000000260e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050301000165"
	b, err := hex.DecodeString(unnamed)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "unnamed.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		p.Close()
	}
	const want = `export "color": its result type (enum) is neither imported nor exported by name`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("load = %v; want an error saying %q", err, want)
	}
}
