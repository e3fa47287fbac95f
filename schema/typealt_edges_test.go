package schema

import (
	"errors"
	"testing"
)

// TestTypeAlternativesNamed: a value of a type no branch of an anyOf
// or oneOf takes was refused naming the first branch's type alone:
// {"anyOf": [{"type": "string"}, {"type": "null"}]} — how pydantic writes
// Optional[str] — refused 5 with "got number, want string", as if null
// were not allowed. The message names every type the branches take; a
// value of a branch's type is still refused for that branch's reason.
func TestTypeAlternativesNamed(t *testing.T) {
	cases := []struct{ schema, value, path, msg string }{
		{`{"properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, `{"x":5}`, "/x", "expected string or null, got integer"},
		{`{"properties":{"x":{"oneOf":[{"type":"string","maxLength":3},{"$ref":"#/$defs/n"}]}},"$defs":{"n":{"type":["integer","boolean"]}}}`, `{"x":[]}`, "/x", "expected string or boolean or integer, got array"},
		{`{"properties":{"x":{"oneOf":[{"type":"string","maxLength":3},{"type":"integer"}]}}}`, `{"x":"abcdef"}`, "/x", "length must be at most 3, got 6 (maxLength)"},
		// allOf is not an alternative: its first failure stays.
		{`{"properties":{"x":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"x":true}`, "/x", "expected string, got boolean"},
	}
	for _, c := range cases {
		err := MustCompile("t@1.0.0 parameters", mustJSON(t, c.schema)).Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || ve.Message != c.msg {
			t.Errorf("%s on %s: %v, want at %s: %s", c.schema, c.value, err, c.path, c.msg)
		}
	}
}
