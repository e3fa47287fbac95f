package schema

import (
	"errors"
	"testing"
)

// TestTypeErrorWordedAsFastPath: a type error is worded one way whichever
// validator found it. The fast path said "expected string, got integer"
// for 5 where a schema it leaves to the reference ($ref, anyOf) said "got
// number, want string" for the same value: another wording, and "number"
// for a whole number (found by p177).
func TestTypeErrorWordedAsFastPath(t *testing.T) {
	for _, c := range []struct{ schema, value, path, msg string }{
		{`{"type":"object","properties":{"n":{"type":"string"}}}`, `{"n":3}`, "/n", "expected string, got integer"},
		{`{"$defs":{"x":{"type":"string"}},"type":"object","properties":{"n":{"$ref":"#/$defs/x"}}}`, `{"n":3}`, "/n", "expected string, got integer"},
		{`{"$defs":{"x":{"type":"string"}},"type":"object","properties":{"n":{"$ref":"#/$defs/x"}}}`, `{"n":3.5}`, "/n", "expected string, got number"},
		{`{"$defs":{"x":{"type":"integer"}},"type":"array","items":{"$ref":"#/$defs/x"}}`, `[1,"a"]`, "/1", "expected integer, got string"},
		{`{"$defs":{"x":{"type":"object"}},"type":"object","properties":{"n":{"$ref":"#/$defs/x"}}}`, `{"n":[]}`, "/n", "expected object, got array"},
	} {
		v, err := Compile("t", mustJSON(t, c.schema))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Validate(value(t, c.value))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != c.path || ve.Message != c.msg {
			t.Errorf("%s on %s: %v; want at %s: %s", c.schema, c.value, err, c.path, c.msg)
		}
	}
}
