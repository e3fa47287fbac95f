//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
)

// TestMisalignedUTF16String: the Canonical ABI traps when a UTF-16 or
// latin1+utf16 string a guest returns starts at an odd address. wazero
// does (ProviderCrashed naming the pointer); wasmtime v39 does not check
// that alignment and reads the string from the odd address. The
// difference was nowhere written down (docs/components.md says it now).
// The component is `jco parse` of
//
//	(component
//	  (core module $m
//	    (memory (export "mem") 1)
//	    (data (i32.const 201) "\62\00\61\00")
//	    (func (export "f") (param i32) (result i32)
//	      i32.const 0 i32.const 201 i32.store i32.const 4 local.get 0 i32.store i32.const 0))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (func (export "utf16") (param "n" u32) (result string)
//	    (canon lift (core func $i "f") (memory $mem) string-encoding=utf16))
//	  (func (export "latin1-utf16") (param "n" u32) (result string)
//	    (canon lift (core func $i "f") (memory $mem) string-encoding=latin1+utf16)))
//
// f returns the string of n code units at 201 (with the UTF-16 tag bit
// 1<<31 set in n for latin1+utf16).
func TestMisalignedUTF16String(t *testing.T) {
	b, err := hex.DecodeString("0061736d0d00010001550061736d0100000001060160017f017f030201000503010001070b02036d656d0200016600000a15011300410041c9013602004104200036020041000b0b0b010041c9010b04620061000009046e616d650002016d02040100000006090100020100036d656d0708014001016e79007306070100000100016608090100000002030001000708014001016e79007306070100000100016608090100000102030002010b1c0200057574663136010000000c6c6174696e312d757466313601010000290e636f6d706f6e656e742d6e616d65010800020100036d656d010600110100016d0106001201000169")
	if err != nil {
		t.Fatal(err)
	}
	pa, err := component.New(context.Background(), b, "misaligned.wasm", "", component.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	l := newLoader(t, Options{})
	pb, err := l.LoadBytes(context.Background(), abi.Source{Path: "misaligned.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	for _, c := range []struct {
		tool string
		n    uint64
	}{{"utf16", 2}, {"latin1-utf16", 1<<31 | 2}} {
		want := "tool " + c.tool + ": result: string pointer 201 is not aligned to 2"
		if v, err := callP(pa, &fakeEnv{}, c.tool, map[string]any{"n": c.n}, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), want) {
			t.Errorf("wazero: %s = %v, %v; want ProviderCrashed saying %q", c.tool, v, err, want)
		}
		// wasmtime reads the odd address: "ba". Should a later wasmtime
		// trap here, this fails: say so in docs/components.md.
		if v, err := callP(pb, &fakeEnv{}, c.tool, map[string]any{"n": c.n}, 10*time.Second); err != nil || v != "ba" {
			t.Errorf("wasmtime: %s = %#v, %v; want \"ba\" (wasmtime v39 reads a misaligned UTF-16 string), or update docs/components.md", c.tool, v, err)
		}
	}
}
