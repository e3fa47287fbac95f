package schema

import (
	"testing"
)

// TestObjectArrayStringFailuresWordedAlike: a missing required property,
// an additional property and a failed length or count are worded one way
// whichever validator found them, as type, enum and bound failures are.
// A schema the reference validates (the same one behind a $ref) said
// "missing properties 'a', 'b'" where the fast path said `missing
// required property "a"`, "minLength: got 0, want 1" for "length must be
// at least 1, got 0" (which named no keyword), "maxItems: got 3, want
// 2", "additional properties 'y', 'x' not allowed" in random order; and
// the fast path named a missing property before a member's own error,
// which the reference names first (the deeper one).
func TestObjectArrayStringFailuresWordedAlike(t *testing.T) {
	for _, c := range []struct{ schema, value, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, `{"c":1}`, `at /: missing required properties "a", "b"`},
		{`{"type":"object","required":["b","a"]}`, `{"a":1}`, `at /: missing required property "b"`},
		{`{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer"}},"required":["a"]}`, `{"n":"x"}`, `at /n: expected integer, got string`},
		{`{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"y":2,"x":3}`, `at /: additional properties "x", "y" not allowed`},
		{`{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"x":3}`, `at /: additional property "x" not allowed`},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"a":1,"x":3}`, `at /a: expected string, got integer`},
		{`{"type":"object","minProperties":2}`, `{"a":1}`, `at /: must have at least 2 properties, got 1 (minProperties)`},
		{`{"type":"object","maxProperties":1,"additionalProperties":{"type":"string"}}`, `{"a":1,"b":"x"}`, `at /a: expected string, got integer`},
		{`{"type":"object","maxProperties":1}`, `{"a":1,"b":2}`, `at /: must have at most 1 properties, got 2 (maxProperties)`},
		{`{"type":"string","minLength":1}`, `""`, `at /: length must be at least 1, got 0 (minLength)`},
		{`{"type":"string","maxLength":2}`, `"héé"`, `at /: length must be at most 2, got 3 (maxLength)`},
		{`{"type":"array","minItems":2}`, `[1]`, `at /: must have at least 2 items, got 1 (minItems)`},
		{`{"type":"array","maxItems":2}`, `[1,2,3]`, `at /: must have at most 2 items, got 3 (maxItems)`},
		{`{"type":"array","uniqueItems":true}`, `[1,2,1.0]`, `at /: items at 0 and 2 are equal`},
	} {
		fast := MustCompile("t", mustJSON(t, c.schema))
		if !fast.Fast() {
			t.Fatalf("%s is not on the fast path", c.schema)
		}
		viaRef := MustCompile("t", mustJSON(t, `{"$ref":"#/$defs/s","$defs":{"s":`+c.schema+`}}`))
		val := value(t, c.value)
		for _, r := range []struct {
			name string
			err  error
		}{{"fast path", fast.Validate(val)}, {"reference", fast.validateRef(val)}, {"behind a $ref", viaRef.Validate(val)}} {
			if r.err == nil || r.err.Error() != c.want {
				t.Errorf("%s: %s on %s: %v; want %s", r.name, c.schema, c.value, r.err, c.want)
			}
		}
	}
}
