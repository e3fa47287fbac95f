package component

import (
	"errors"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// enumErrHex is `jco parse` of a component whose f and g fail with the
// err side of their result, its payload the argument a:
//
//	(component
//	  (core module $m (memory (export "mem") 1)
//	    (func (export "f") (param i32) (result i32)
//	      (i32.store8 (i32.const 8) (i32.const 1)) (i32.store (i32.const 12) (local.get 0)) (i32.const 8)))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (type $e (enum "too-big" "negative"))
//	  (export $e2 "why" (type $e))
//	  (type $ft (func (param "a" u32) (result (result u32 (error $e2)))))
//	  (func $f (type $ft) (canon lift (core func $i "f") (memory $mem)))
//	  (func $g (param "a" u32) (result (result u32 (error char))) (canon lift (core func $i "f") (memory $mem)))
//	  (export "f" (func $f))
//	  (export "g" (func $g)))
const enumErrHex = "0061736d0d00010001470061736d0100000001060160017f017f030201000503010001070b02036d656d0200016600000a14011200410841013a0000410c200036020041080b0009046e616d650002016d02040100000006090100020100036d656d0714016d0207746f6f2d626967086e656761746976650b09010003776879030000070d026a017901014001016179000206070100000100016608080100000001030003070d026a0179017440010161790004060701000001000166080801000001010300050b0d0200016601000000016701010000420e636f6d706f6e656e742d6e616d65010800020100036d656d010600110100016d010600120100016901080102000166010167010d03030001650102653203026674"

// TestEnumErrorData: docs/wit.md says a function's top-level
// result<T, E> fails with a ProviderError whose Data is E's JSON, and
// docs/components.md that only a string E is the message alone. An enum E
// (result<u32, why>) was taken for a string, since its JSON is one: the
// caller got the case as the message and no Data, so it could not tell the
// enum's case from free text (a char E alike). Both carry Data now, the
// message being the case (the character) as before; a string E stays the
// message alone.
func TestEnumErrorData(t *testing.T) {
	p := loadHexComponent(t, enumErrHex, "enumerr.wasm")
	for _, c := range []struct {
		tool string
		a    int
		want string
	}{{"f", 1, "negative"}, {"f", 0, "too-big"}, {"g", 'é', "é"}} {
		_, err := call(t, p, &fakeEnv{}, c.tool, map[string]any{"a": c.a})
		var te *abi.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("%s(%d): %v, want a ToolError", c.tool, c.a, err)
		}
		if te.Code != abi.ProviderError || te.Message != c.want || te.Data != c.want {
			t.Errorf("%s(%d): %s %q, data %#v; want ProviderError %q with that data", c.tool, c.a, te.Code, te.Message, te.Data, c.want)
		}
	}
}
