package schema

import (
	"strings"
	"testing"
)

// TestSchemaBoundErrorsSayWhatIsAllowed: a schema's keyword out of its
// range was refused in the metaschema's terms, naming a keyword the
// author never wrote and two numbers that read as equal: multipleOf 0
// "at /multipleOf: exclusiveMinimum: got 0, want 0", minLength -1 "at
// /properties/a/minLength: minimum: got -1, want 0". It is worded as a
// value's bound is: "must be > 0, got 0", "must be >= 0, got -1".
func TestSchemaBoundErrorsSayWhatIsAllowed(t *testing.T) {
	cases := []struct {
		doc  map[string]any
		want string
	}{
		{map[string]any{"type": "number", "multipleOf": int64(0)}, "at /multipleOf: must be > 0, got 0"},
		{map[string]any{"type": "number", "multipleOf": -0.5}, "at /multipleOf: must be > 0, got -0.5"},
		{map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string", "minLength": int64(-1)}}}, "at /properties/a/minLength: must be >= 0, got -1"},
	}
	for _, c := range cases {
		_, err := Compile("t@1.0.0 parameters", c.doc)
		if err == nil || !strings.HasSuffix(err.Error(), "is invalid: "+c.want) {
			t.Errorf("%v: got %v, want …is invalid: %s", c.doc, err, c.want)
		}
	}
}
