package schema

import "testing"

// TestFastPathNamesTheReferencesError: of several failures in one value,
// the fast path names the one the reference names: the deepest, and of
// failures alike deep the first member in name order (declared or not)
// or item in index order. It named the first it met: a too short array
// of a wrong item was told "must have at least 3 items" where the same
// schema behind a $ref was told "at /0: expected string", and a wrong
// member before a wrong nested one ("at /a" for "at /b/0").
func TestFastPathNamesTheReferencesError(t *testing.T) {
	for _, c := range []struct{ schema, value, want string }{
		{`{"type":"array","minItems":3,"items":{"type":"string"}}`, `[1]`, "at /0: expected string, got integer"},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"string"}}}}`, `{"a":1,"b":[1]}`, "at /b/0: expected string, got integer"},
		{`{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":{"type":"string"}}`, `{"b":1,"a":1}`, "at /a: expected string, got integer"},
		{`{"type":"object","properties":{"b":false},"additionalProperties":{"type":"string"},"maxProperties":1}`, `{"b":1,"a":1}`, "at /a: expected string, got integer"},
		{`{"type":"array","prefixItems":[{"type":"object","required":["k"]}],"items":false}`, `[{},2]`, `at /0: missing required property "k"`},
		{`{"type":"array","uniqueItems":true,"items":{"type":"array","items":{"type":"integer"}}}`, `[[1],[1],[2,"x"]]`, "at /2/1: expected integer, got string"},
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
		}{{"fast path", fast.Validate(val)}, {"behind a $ref", viaRef.Validate(val)}} {
			if r.err == nil || r.err.Error() != c.want {
				t.Errorf("%s: %s on %s: %v; want %s", r.name, c.schema, c.value, r.err, c.want)
			}
		}
	}
}
