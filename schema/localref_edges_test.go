package schema

import (
	"strings"
	"testing"
)

// TestLocalRefToNothingNamesWhere: a $ref within the schema to a place
// that is not there (a misspelt $defs name, an anchor no schema declares)
// was refused as 'json-pointer in "schema#/$defs/adress" not found' or
// 'anchor in "aios-schema:///t#street" not found in schema …', naming
// neither where the $ref is nor, for a pointer, the schema as the author
// knows it; the error names the reference's pointer, as for a $ref to
// another document (TestExternalRefNamesWhere). A malformed pointer
// ("#/$defs/a~2b") was 'invalid json-pointer "schema#/$defs/a~2b"' alike.
func TestLocalRefToNothingNamesWhere(t *testing.T) {
	cases := []struct {
		schema string
		want   string
	}{
		{`{"properties":{"name":{"$ref":"#/$defs/name"},"addr":{"$ref":"#/$defs/adress"}},"$defs":{"name":{"type":"string"},"address":{"type":"object"}}}`,
			`at /properties/addr/$ref: `},
		{`{"properties":{"list":{"type":"array","items":{"$ref":"#street"}}},"$defs":{"s":{"$anchor":"road","type":"string"}}}`,
			`at /properties/list/items/$ref: `},
		{`{"properties":{"a b":{"$ref":"#/$defs/a%20c"}},"$defs":{"a b":{}}}`,
			`at /properties/a b/$ref: `},
		// A pointer that is no JSON pointer (~2 is no escape) likewise.
		{`{"properties":{"a":{"$ref":"#/$defs/a~2b"}},"$defs":{"a~b":{}}}`,
			`at /properties/a/$ref: `},
	}
	for _, c := range cases {
		_, err := Compile("t@1.0.0 parameters", mustJSON(t, c.schema))
		if err == nil || !strings.Contains(err.Error(), "schema of t@1.0.0 parameters is invalid: "+c.want) {
			t.Errorf("%s: %v, want …%s…", c.schema, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), schemaBase) {
			t.Errorf("%s: %v names the host's internal base URI", c.schema, err)
		}
	}
}
