package schema

import (
	"errors"
	"testing"
)

// TestOneOfMatchingTwoBranchesSaysExactlyOne: a value matching two
// branches of a oneOf was refused with the reference's "'oneOf' failed,
// subschemas 0, 1 matched", which names neither the oneOf (a schema may
// have several applying to one value) nor the rule broken. The message
// names the oneOf and the two branches by their schema pointers and says
// the value must match exactly one of them.
func TestOneOfMatchingTwoBranchesSaysExactlyOne(t *testing.T) {
	cases := []struct{ schema, value, path, want string }{
		{`{"oneOf":[{"type":"integer"},{"minimum":0}]}`, `1`, "",
			"value matches both /oneOf/0 and /oneOf/1 of the oneOf at /oneOf; it must match exactly one"},
		{`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"object","properties":{"x":{}}},{"type":"object","properties":{"y":{}}}]}}}`,
			`{"a":{"x":1}}`, "/a",
			"value matches both /properties/a/oneOf/1 and /properties/a/oneOf/2 of the oneOf at /properties/a/oneOf; it must match exactly one"},
	}
	for _, c := range cases {
		err := MustCompile("t@1.0.0 parameters", mustJSON(t, c.schema)).Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || ve.Message != c.want {
			t.Errorf("%s against %s: %v; want at %q: %s", c.value, c.schema, err, c.path, c.want)
		}
	}
}
