package schema

import (
	"strings"
	"testing"
)

// TestEmptyEnumSaysNoValueAllowed: an empty enum (valid JSON Schema, which
// nothing matches) refused every value with "value must be one of ",
// a list of nothing. It says that no value is allowed, the enum being
// empty, on the fast path and the reference's alike.
func TestEmptyEnumSaysNoValueAllowed(t *testing.T) {
	for _, doc := range []map[string]any{
		{"properties": map[string]any{"a": map[string]any{"enum": []any{}}}},
		{"properties": map[string]any{"a": map[string]any{"enum": []any{}}}, "anyOf": []any{true}},
	} {
		v, err := Compile("t@1.0.0 parameters", doc)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Validate(map[string]any{"a": int64(1)})
		if err == nil || err.Error() != "at /a: no value is allowed (the enum is empty)" {
			t.Errorf("fast=%v: got %v", v.Fast(), err)
		}
		if err != nil && strings.HasSuffix(err.Error(), "one of ") {
			t.Errorf("fast=%v: %v lists nothing", v.Fast(), err)
		}
	}
}
