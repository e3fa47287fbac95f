package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
)

// TestNoExportedFunctionsRefused: a component that exports no function
// (its canon lift never exported: the WAT below) loaded on wazero as a
// provider of no tools without a word, where the wasmtime engine refuses
// it ("exports no functions, so it offers no tools") and a core module, a
// JS or a Python provider registering no tools is refused. Both engines
// refuse it, naming the file.
//
//	(component
//	  (core module $m (memory (export "mem") 1)
//	    (func (export "f") (result i32) i32.const 7))
//	  (core instance $i (instantiate $m))
//	  (func $ff (result u32) (canon lift (core func $i "f"))))
func TestNoExportedFunctionsRefused(t *testing.T) {
	b, err := hex.DecodeString("0061736d0d00010001380061736d010000000105016000017f030201000503010001070b02036d656d0200016600000a0601040041070b0009046e616d650002016d02040100000007050140000079060701000001000166080601000000000000270e636f6d706f6e656e742d6e616d65010600110100016d01060012010001690106010100026666")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "noexports.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		n := len(p.Describe().Tools)
		p.Close()
		t.Fatalf("a component exporting no function loaded as a provider of %d tools", n)
	}
	if msg := err.Error(); !strings.Contains(msg, "noexports.wasm") || !strings.Contains(msg, "exports no functions") {
		t.Fatalf("err = %v, want it to name the file and say it exports no functions", err)
	}
}
