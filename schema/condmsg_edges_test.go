package schema

import (
	"errors"
	"testing"
)

// TestConditionalMessages: a value refused by not was told only
// "'not' failed", naming no schema, and a property required by a then
// (or an else) "missing property 'y'", though y is required only because
// the value matched the if — a caller could not tell why. The not names
// its schema, and a failure under then/else names the if that chose it.
func TestConditionalMessages(t *testing.T) {
	cases := []struct{ schema, value, path, msg string }{
		{`{"properties":{"mode":{"not":{"const":"legacy"}}}}`, `{"mode":"legacy"}`, "/mode", "value must not match the schema at /properties/mode/not"},
		{`{"not":{"required":["a","b"]}}`, `{"a":1,"b":2}`, "", "value must not match the schema at /not"},
		{`{"if":{"properties":{"k":{"const":"x"}}},"then":{"required":["y"]},"else":{"required":["z"]}}`, `{"k":"x"}`, "",
			`missing required property "y" (by /then, as the value matches /if)`},
		{`{"if":{"properties":{"k":{"const":"x"}}},"then":{"required":["y"]},"else":{"required":["z"]}}`, `{"k":"q"}`, "",
			`missing required property "z" (by /else, as the value does not match /if)`},
		{`{"properties":{"o":{"if":{"required":["a"]},"then":{"properties":{"n":{"maximum":3}}}}}}`, `{"o":{"a":1,"n":5}}`, "/o/n",
			"must be <= 3, got 5 (by /properties/o/then, as the value matches /properties/o/if)"},
		{`{"required":["a"],"not":{"const":1}}`, `{}`, "", `missing required property "a"`},
		// A failure under dependentSchemas said only 'missing required
		// property "b"', which the schema's required does not list.
		{`{"type":"object","dependentSchemas":{"card":{"required":["billing"]}}}`, `{"card":1}`, "",
			`missing required property "billing" (by /dependentSchemas/card, as "card" is present)`},
		{`{"properties":{"o":{"dependentSchemas":{"a/b":{"properties":{"n":{"maximum":3}}}}}}}`, `{"o":{"a/b":1,"n":5}}`, "/o/n",
			`must be <= 3, got 5 (by /properties/o/dependentSchemas/a~1b, as "a/b" is present)`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"card":{"required":["billing"]}}}`, `{"card":1}`, "",
			`missing required property "billing" (by /dependencies/card, as "card" is present)`},
	}
	for _, c := range cases {
		err := MustCompile("t@1.0.0 parameters", mustJSON(t, c.schema)).Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || ve.Message != c.msg {
			t.Errorf("%s on %s: %v, want at %s: %s", c.schema, c.value, err, c.path, c.msg)
		}
	}
}
