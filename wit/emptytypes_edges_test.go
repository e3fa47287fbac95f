package wit

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/component/wat"
)

// TestEmptyTupleAndFlagsDecode: `tuple<>`, `flags f {}` and flags of more
// than 32 names are valid WIT (wit-parser takes them, and wasm-tools
// encodes them in a package or a component-type section), but the binary
// reader refused them ("empty tuple", "flags or enum without labels",
// "flags with 40 labels (at most 32)") while the text reader took the
// same package printed: `aios-host wit x.wat` printed it and
// `aios-host wit x.wasm` failed. Like an empty record, they are read, and
// refused where they cannot be: in a component that runs (package
// component, TestEmptyTupleAndFlagsRefusedAtRun).
func TestEmptyTupleAndFlagsDecode(t *testing.T) {
	inst := func(typ string) string {
		return `(component
  (type (component
    (type (component
      (type (instance
        (type ` + typ + `)
        (export "t" (type (eq 0)))
        (type (func (param "x" 1)))
        (export "f" (func (type 2)))))
      (export "a:b/i" (instance (type 0)))))
    (export "a:b/w" (component (type 0)))))
  (export "w" (type 0)))`
	}
	var forty []string
	for i := range 40 {
		forty = append(forty, `"x`+string(rune('a'+i/26))+string(rune('a'+i%26))+`"`)
	}
	for typ, want := range map[string]string{
		"(tuple)": "type t = tuple<>;",
		"(flags)": "flags t {\n  }",
		"(flags " + strings.Join(forty, " ") + ")": "xbn,",
	} {
		c, err := wat.Parse([]byte(inst(typ)))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		res, err := DecodeBinary("x.wasm", encodeComponent(t, c), Options{})
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		if out := Print(res); !strings.Contains(out, want) {
			t.Errorf("%s: printed\n%s\nwant %q in it", typ, out, want)
		}
	}
}
