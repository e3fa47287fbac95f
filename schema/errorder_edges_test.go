package schema

import (
	"errors"
	"testing"
)

// TestSameErrorEveryTime: a value with several members that fail their
// schema is told the same error on every call, naming the first of them
// in name order (items in index order), on both paths. The fast path
// checked additionalProperties, and the reference every member, in Go's
// random map order: one invalid call was refused "at /c: …" and, sent
// again, "at /a: …", in answers and in the audit log alike.
func TestSameErrorEveryTime(t *testing.T) {
	for _, c := range []struct{ schema, value, path string }{
		{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"e":1,"d":2,"c":3,"b":4,"a":5}`, "/a"},
		{`{"type":"object","additionalProperties":{"$ref":"#/$defs/s"},"$defs":{"s":{"type":"string"}}}`, `{"e":1,"d":2,"c":3,"b":4,"a":5}`, "/a"},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"not":{"type":"null"}}`, `{"c":1,"b":2,"a":3}`, "/a"},
		{`{"type":"object","additionalProperties":{"type":"array","items":{"anyOf":[{"type":"string"}]}}}`, `{"y":[1],"x":["a",2],"w":["a","b",3]}`, "/w/2"},
		{`{"type":"array","items":{"anyOf":[{"type":"string"}]}}`, `["a",10,2,3]`, "/1"},
		{`{"type":"object","additionalProperties":{"anyOf":[{"type":"string"}]}}`, `{"9":1,"10":2}`, "/10"},
	} {
		v := MustCompile("t", mustJSON(t, c.schema))
		val := value(t, c.value)
		for i := 0; i < 40; i++ {
			for _, r := range []struct {
				name string
				err  error
			}{{"Validate", v.Validate(val)}, {"reference", v.validateRef(val)}} {
				var ve *ValidationError
				if !errors.As(r.err, &ve) || ve.Path != c.path {
					t.Fatalf("%s %s on %s (try %d): %v; want the error at %s", r.name, c.schema, c.value, i, r.err, c.path)
				}
			}
		}
	}
}
