package schema

import (
	"strings"
	"testing"
)

// TestExternalRefNamesWhere: a schema with a $ref to another document
// was refused naming the document ('failing loading "https://…"') but not
// where the $ref is, which in a schema of many references sent the author
// searching; the error names the reference's pointer.
func TestExternalRefNamesWhere(t *testing.T) {
	cases := []struct {
		schema string
		want   string
	}{
		{`{"properties":{"a":{"type":"string"},"addr":{"$ref":"https://example.com/schemas/address.json#/$defs/street"}}}`,
			`at /properties/addr/$ref: failing loading "https://example.com/schemas/address.json"`},
		{`{"properties":{"list":{"type":"array","prefixItems":[{"$ref":"#/$defs/x"},{"$ref":"../common/defs.json"}]}},"$defs":{"x":{}}}`,
			`at /properties/list/prefixItems/1/$ref: failing loading "common/defs.json"`},
		{`{"$defs":{"a/b":{"$ref":"file:///etc/passwd"}},"$ref":"#/$defs/a~1b"}`, `at /$defs/a~1b/$ref: failing loading "file:///etc/passwd"`},
	}
	for _, c := range cases {
		_, err := Compile("t@1.0.0 parameters", mustJSON(t, c.schema))
		if err == nil || !strings.Contains(err.Error(), "schema of t@1.0.0 parameters is invalid: "+c.want) {
			t.Errorf("%s: %v, want …%s…", c.schema, err, c.want)
		}
	}
}
