package schema

import (
	"strings"
	"testing"
)

// TestRefToInvalidSubschemaNamesIt: a $ref to a part of the document
// that is not a valid schema (a keyword's value, "#/properties/b/type",
// or a schema under an unknown keyword with a mistake in it) was refused
// 'at /: got string, want boolean or object', as if the whole schema
// were a string: the metaschema's locations are relative to the part
// validated. The error names the part by its pointer in the schema and
// the $ref that refers to it.
func TestRefToInvalidSubschemaNamesIt(t *testing.T) {
	cases := []struct {
		schema string
		want   []string
	}{
		{`{"properties":{"a":{"$ref":"#/properties/b/type"},"b":{"type":"string"}}}`,
			[]string{"at /properties/a/$ref: ", "at /properties/b/type: got string, want boolean or object"}},
		{`{"properties":{"a":{"$ref":"#/x-shapes/circle"}},"x-shapes":{"circle":{"type":"object","properties":{"r":{"type":"numbr"}}}}}`,
			[]string{"at /properties/a/$ref: ", `at /x-shapes/circle/properties/r/type: "numbr" is not allowed`}},
	}
	for _, c := range cases {
		_, err := Compile("t@1.0.0 parameters", mustJSON(t, c.schema))
		for _, want := range c.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want …%s…", c.schema, err, want)
			}
		}
		if err != nil && strings.Contains(err.Error(), "at /: ") {
			t.Errorf("%s: %v blames the schema's root", c.schema, err)
		}
	}
}
