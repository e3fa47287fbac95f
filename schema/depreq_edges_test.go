package schema

import "testing"

// TestDependentRequiredNamesKeyword: a property required by
// dependentRequired (or draft-07's dependencies) because another is
// present was told "properties 'b' required, if 'a' exists", naming no
// keyword, in other quotes than a property the object's required lacks,
// and "properties" for one. It is worded as a missing required property
// is, with the keyword and the property that made it required. Of two
// such failures the same one is named on every call (the reference checks
// them in Go's random map order).
func TestDependentRequiredNamesKeyword(t *testing.T) {
	for _, c := range []struct{ schema, value, want string }{
		{`{"dependentRequired":{"a":["b","c"]}}`, `{"a":1}`, `at /: missing required properties "b", "c" (dependentRequired: "a" is present)`},
		{`{"dependentRequired":{"card":["billing"]}}`, `{"card":1,"x":2}`, `at /: missing required property "billing" (dependentRequired: "card" is present)`},
		{`{"dependentRequired":{"b":["y"],"a":["x"],"c":["z"]}}`, `{"a":1,"b":2,"c":3}`, `at /: missing required property "x" (dependentRequired: "a" is present)`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, `{"a":1}`, `at /: missing required property "b" (dependencies: "a" is present)`},
	} {
		v := MustCompile("t", mustJSON(t, c.schema))
		for range 20 {
			if err := v.Validate(value(t, c.value)); err == nil || err.Error() != c.want {
				t.Fatalf("%s on %s: %v; want %s", c.schema, c.value, err, c.want)
			}
		}
	}
}
