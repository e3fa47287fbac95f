package schema

import (
	"errors"
	"strings"
	"testing"
)

// TestUnevaluatedNotBlamedForMembersFailingTheirSchema: a schema that
// extends a base with $ref or allOf and closes the object with
// unevaluatedProperties: false refused a member of the wrong type as
// "property "t" not allowed (unevaluatedProperties is false, and no
// properties … declares it)", though the base declares t: the failed
// branch's annotations are dropped, so the reference also reports t as
// unevaluated, and that error was chosen over the type error at the same
// place. The message now says what is wrong with the member (its type,
// its constant, the item's type); unevaluated* is named only for a member
// or item no schema declares.
func TestUnevaluatedNotBlamedForMembersFailingTheirSchema(t *testing.T) {
	cases := []struct{ schema, value, path, want string }{
		{`{"$defs":{"b":{"type":"object","properties":{"t":{"type":"integer"}}}},"$ref":"#/$defs/b","unevaluatedProperties":false}`,
			`{"t":"x"}`, "/t", "expected integer, got string"},
		{`{"type":"object","allOf":[{"properties":{"t":{"type":"integer"}}}],"unevaluatedProperties":false}`,
			`{"t":"x"}`, "/t", "expected integer, got string"},
		{`{"type":"object","allOf":[{"properties":{"t":{"const":1}}}],"unevaluatedProperties":false}`,
			`{"t":2}`, "/t", "value must be 1"},
		{`{"type":"array","allOf":[{"prefixItems":[{"type":"integer"}]}],"unevaluatedItems":false}`,
			`["x"]`, "/0", "expected integer, got string"},
		// A member no schema declares is still named as unevaluated.
		{`{"$defs":{"b":{"type":"object","properties":{"t":{"type":"integer"}}}},"$ref":"#/$defs/b","unevaluatedProperties":false}`,
			`{"t":1,"u":2}`, "/u", `property "u" not allowed (unevaluatedProperties is false`},
	}
	for _, c := range cases {
		v := MustCompile("t@1.0.0 parameters", mustJSON(t, c.schema))
		err := v.Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || !strings.Contains(ve.Message, c.want) {
			t.Errorf("%s against %s: %v; want at %s: …%s…", c.value, c.schema, err, c.path, c.want)
		}
	}
}
