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

// TestResultLiftFailureNamed: a result the guest returns malformed (a
// discriminant past the cases, a char that is a surrogate, a string that
// is not UTF-8, a misaligned return area) fails the call as wazero says
// it, naming the result. wasmtime's message alone did not say it was the
// result, and for a bad discriminant told a range of no cases
// ("discriminant 3 out of range [0..0)" of a variant of 3 cases). The
// component is `jco parse` of
//
//	(component
//	  (core module $m
//	    (memory (export "mem") 1)
//	    (func (export "v") (param $d i32) (result i32)
//	      (i32.store8 (i32.const 64) (local.get $d))
//	      (i32.store (i32.const 68) (i32.const 77))
//	      (i32.const 64))
//	    (func (export "ch") (param $c i32) (result i32) (local.get $c))
//	    (func (export "s") (param $k i32) (result i32)
//	      (i32.store (i32.const 300) (i32.const 2000))
//	      (i32.store (i32.const 304) (i32.const 2))
//	      (i32.store16 (i32.const 2000) (i32.const 0x28c3))
//	      (i32.add (i32.const 300) (local.get $k))))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (type $v (variant (case "a") (case "b" u32) (case "c")))
//	  (export $ve "vt" (type $v))
//	  (func (export "v") (param "d" u32) (result $ve) (canon lift (core func $i "v") (memory $mem)))
//	  (func (export "ch") (param "c" u32) (result char) (canon lift (core func $i "ch")))
//	  (func (export "s") (param "k" u32) (result string) (canon lift (core func $i "s") (memory $mem))))
func TestResultLiftFailureNamed(t *testing.T) {
	b, err := hex.DecodeString("0061736d0d0001000191010061736d0100000001060160017f017f0304030000000503010001071404036d656d0200017600000263680001017300020a4103160041c00020003a000041c40041cd0036020041c0000b040020000b230041ac0241d00f36020041b002410236020041d00f41c3d1003b010041ac0220006a0b001b046e616d650002016d02100300010001640101000163020100016b02040100000006090100020100036d656d0710017103016100000162017900016300000b0801000276740300000708014001016479000106070100000100017608080100000001030002070801400101637900740608010000010002636808060100000100030708014001016b790073060701000001000173080801000002010300040b14030001760100000002636801010000017301020000340e636f6d706f6e656e742d6e616d65010800020100036d656d010600110100016d01060012010001690109030200017601027665")
	if err != nil {
		t.Fatal(err)
	}
	pa, err := component.New(context.Background(), b, "lift.wasm", "", component.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	pb, err := newLoader(t, Options{}).LoadBytes(context.Background(), abi.Source{Path: "lift.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string // one of them in the message, after "tool <tool>: result: "
	}{
		{"v", map[string]any{"d": 3}, []string{"discriminant 3 out of range"}},
		{"ch", map[string]any{"c": 0xD800}, []string{"char", "Unicode scalar value"}},
		{"s", map[string]any{"k": 0}, []string{"utf-8", "UTF-8"}},
		{"s", map[string]any{"k": 2}, []string{"not aligned"}},
	} {
		for _, e := range []struct {
			name string
			p    abi.Provider
		}{{"wazero", pa}, {"wasmtime", pb}} {
			_, err := callP(e.p, &fakeEnv{}, c.tool, c.args, time.Minute)
			prefix := "tool " + c.tool + ": result: "
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			ok := abi.CodeOf(err) == abi.ProviderCrashed && strings.Contains(msg, prefix) && !strings.Contains(msg, "[0..0)")
			named := false
			for _, w := range c.want {
				named = named || strings.Contains(msg, w)
			}
			if !ok || !named {
				t.Errorf("%s: %s %v: %v; want ProviderCrashed %q naming %q", e.name, c.tool, c.args, err, prefix, c.want)
			}
		}
	}
}

// TestArgumentLoweringNotNamedResult: a call that fails lowering its
// arguments (realloc's answer out of bounds or misaligned) is not named
// "result:" by TestResultLiftFailureNamed's rule, on wasmtime as on
// wazero. The component is `jco parse` of
//
//	(component
//	  (core module $m
//	    (memory (export "mem") 1)
//	    (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 70000))
//	    (func (export "realloc2") (param i32 i32 i32 i32) (result i32) (i32.const 4097))
//	    (func (export "f") (param i32 i32) (result i32) (local.get 1)))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (func (export "oob") (param "s" string) (result u32) (canon lift (core func $i "f") (memory $mem) (realloc (func $i "realloc"))))
//	  (func (export "odd") (param "s" (list u32)) (result u32) (canon lift (core func $i "f") (memory $mem) (realloc (func $i "realloc2")))))
func TestArgumentLoweringNotNamedResult(t *testing.T) {
	b, err := hex.DecodeString("0061736d0d00010001660061736d01000000010f0260047f7f7f7f017f60027f7f017f0304030000010503010001072004036d656d0200077265616c6c6f630000087265616c6c6f63320001016600020a1303060041f0a2040b05004181200b040020010b0009046e616d650002016d02040100000006090100020100036d656d0708014001017373007906130200000100016600000100077265616c6c6f63080a01000000020300040100070a0270794001017301007906140200000100016600000100087265616c6c6f6332080a010000020203000403020b110200036f6f6201000000036f646401010000290e636f6d706f6e656e742d6e616d65010800020100036d656d010600110100016d0106001201000169")
	if err != nil {
		t.Fatal(err)
	}
	pa, err := component.New(context.Background(), b, "realloc.wasm", "", component.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	pb, err := newLoader(t, Options{}).LoadBytes(context.Background(), abi.Source{Path: "realloc.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"oob", map[string]any{"s": "abc"}}, {"odd", map[string]any{"s": []any{1, 2}}}} {
		for _, e := range []struct {
			name string
			p    abi.Provider
		}{{"wazero", pa}, {"wasmtime", pb}} {
			_, err := callP(e.p, &fakeEnv{}, c.tool, c.args, time.Minute)
			if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "realloc return") || strings.Contains(err.Error(), "result:") {
				t.Errorf("%s: %s: %v; want ProviderCrashed naming realloc's answer, not the result", e.name, c.tool, err)
			}
		}
	}
}
