package schema

import (
	"strings"
	"testing"
)

// TestPropertyNamesFailureAtItsObject: a propertyNames failure was reported
// at a sibling's pointer: the reference keeps the validator's location
// slice, which later siblings overwrite, so {"a": {"xyz": 1}, "b": {}}
// under "a"'s propertyNames {maxLength: 2} was refused "at /b: property
// name "xyz": …", and an item's "at /0/n" for /0/m; a pattern of a
// patternProperties that is not a regular expression was said to be "at
// /type" of the schema. The failure is reported at the object that holds
// the name, and a bad patternProperties key at its patternProperties.
func TestPropertyNamesFailureAtItsObject(t *testing.T) {
	cases := []struct {
		schema map[string]any
		value  any
		at     string
	}{
		{
			map[string]any{"type": "object", "properties": map[string]any{
				"a": map[string]any{"type": "object", "propertyNames": map[string]any{"maxLength": int64(2)}},
				"b": map[string]any{"type": "object"},
			}},
			map[string]any{"a": map[string]any{"xyz": int64(1)}, "b": map[string]any{"c": int64(1)}},
			"at /a: ",
		},
		{
			map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
				"m": map[string]any{"propertyNames": map[string]any{"maxLength": int64(2)}},
				"n": map[string]any{"type": "object", "properties": map[string]any{"k": true}},
			}}},
			[]any{map[string]any{"m": map[string]any{"xyz": int64(1)}, "n": map[string]any{"k": int64(1)}}},
			"at /0/m: ",
		},
		{
			map[string]any{"type": "array", "items": map[string]any{"type": "object", "propertyNames": map[string]any{"maxLength": int64(2)}}},
			[]any{map[string]any{"xyz": int64(1)}, map[string]any{"a": int64(1)}},
			"at /0: ",
		},
	}
	for _, c := range cases {
		v, err := Compile("t@1.0.0 parameters", c.schema)
		if err != nil {
			t.Fatal(err)
		}
		// Map order varies: the sibling validated after the object did,
		// or not; try enough times to see both.
		for range 20 {
			err := v.Validate(c.value)
			if err == nil || !strings.HasPrefix(err.Error(), c.at) || !strings.Contains(err.Error(), `property name "xyz"`) {
				t.Fatalf("%v: got %v, want %s…property name \"xyz\"…", c.value, err, c.at)
			}
		}
	}

	for _, c := range []struct {
		schema map[string]any
		at     string
	}{
		{map[string]any{"type": "object", "patternProperties": map[string]any{"[": true}}, "at /patternProperties: "},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "object", "patternProperties": map[string]any{"(": true}}}}, "at /properties/a/patternProperties: "},
	} {
		_, err := Compile("t@1.0.0 parameters", c.schema)
		if err == nil || !strings.Contains(err.Error(), "is invalid: "+c.at) {
			t.Errorf("%v: got %v, want …is invalid: %s…", c.schema, err, c.at)
		}
	}
}
