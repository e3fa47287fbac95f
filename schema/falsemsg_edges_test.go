package schema

import (
	"errors"
	"strings"
	"testing"
)

// TestFalseSchemaNamesTheKeyword: a value refused by a false schema
// was reported as "false schema" (reference) or "value not allowed here
// (schema is false)" (fast path) at the member's path, naming neither the
// member nor the keyword: a caller sending an extra parameter to a schema
// with unevaluatedProperties: false (the way allOf-composed schemas close
// an object) read "at /b: false schema". The message names the member or
// item and the keyword, the same on both paths.
func TestFalseSchemaNamesTheKeyword(t *testing.T) {
	cases := []struct {
		schema, value string
		fast          bool
		path, want    string
	}{
		{`{"allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`, false, "/b",
			`property "b" not allowed (unevaluatedProperties is false`},
		{`{"prefixItems":[{}],"unevaluatedItems":false}`, `[1,2]`, false, "/1", `item 1 not allowed (unevaluatedItems is false`},
		{`{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`, `[1,"a",3]`, true, "/2",
			`item 2 not allowed (items is false: the array takes at most 2 items)`},
		{`{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false,"not":{"const":0}}`, `[1,"a",3]`, false, "/2",
			`item 2 not allowed (items is false: the array takes at most 2 items)`},
		{`{"properties":{"legacy":false}}`, `{"legacy":1}`, true, "/legacy", `property "legacy" not allowed (its schema in properties is false)`},
		{`{"properties":{"legacy":false},"not":{"const":0}}`, `{"legacy":1}`, false, "/legacy", `property "legacy" not allowed (its schema in properties is false)`},
		{`{"properties":{"items":false},"not":{"const":0}}`, `{"items":1}`, false, "/items", `property "items" not allowed`},
		{`{"prefixItems":[false],"not":{"const":0}}`, `[1]`, false, "/0", `item 0 not allowed (its schema in prefixItems is false)`},
		{`{"patternProperties":{"^x-":false}}`, `{"x-a":1}`, false, "/x-a", `property "x-a" not allowed (a patternProperties schema it matches is false)`},
		{`{"properties":{"a":{"$ref":"#/$defs/never"}},"$defs":{"never":false}}`, `{"a":1}`, false, "/a", `the schema at /$defs/never is false`},
	}
	for _, c := range cases {
		v := MustCompile("t@1.0.0 parameters", mustJSON(t, c.schema))
		if v.Fast() != c.fast {
			t.Errorf("%s: Fast() = %v, want %v", c.schema, v.Fast(), c.fast)
		}
		err := v.Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || !strings.Contains(ve.Message, c.want) {
			t.Errorf("%s on %s: %v, want at %s: %s…", c.schema, c.value, err, c.path, c.want)
		}
	}
}
