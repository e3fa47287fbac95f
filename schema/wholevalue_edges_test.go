package schema

import (
	"errors"
	"strings"
	"testing"
)

// TestContainsAndPropertyNamesMessages: an array none of whose items
// matched contains was refused "at /0: got number, want string", as if
// item 0 had to be a string; a key that failed propertyNames was refused
// "at /: does not match pattern …", naming no key (and a patternProperties
// key that is no regular expression was reported at / of the schema). The
// contains failure is the array's, and the key is named.
func TestContainsAndPropertyNamesMessages(t *testing.T) {
	cases := []struct{ schema, value, path, msg string }{
		{`{"properties":{"tags":{"type":"array","contains":{"type":"string"}}}}`, `{"tags":[1,2]}`, "/tags", "no items match contains schema"},
		{`{"properties":{"tags":{"type":"array","contains":{"type":"string"},"minContains":2}}}`, `{"tags":[1,"a"]}`, "/tags", "min 2 items required to match contains schema, but matched 1 items at 1"},
		{`{"properties":{"env":{"type":"object","propertyNames":{"pattern":"^[A-Z_]+$"}}}}`, `{"env":{"PATH":"x","home":"y"}}`, "/env",
			`property name "home": does not match pattern "^[A-Z_]+$"`},
		{`{"propertyNames":{"maxLength":3}}`, `{"abcd":1}`, "", `property name "abcd": length must be at most 3, got 4 (maxLength)`},
	}
	for _, c := range cases {
		err := MustCompile("t@1.0.0 parameters", mustJSON(t, c.schema)).Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || ve.Message != c.msg {
			t.Errorf("%s on %s: %v, want at %s: %s", c.schema, c.value, err, c.path, c.msg)
		}
	}
	_, err := Compile("t@1.0.0 parameters", mustJSON(t, `{"patternProperties":{"^ok$":{},"(":{}}}`))
	if err == nil || !strings.Contains(err.Error(), `at /patternProperties: property name "(": '(' is not valid regex`) {
		t.Errorf("err = %v, want it to name /patternProperties and the key", err)
	}
}
