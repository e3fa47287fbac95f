package shorthand

import (
	"reflect"
	"testing"
)

// TestTypeArraySchemaAsGiven: a whole schema whose type is an array
// ({"type": ["object", "null"], "additionalProperties": {...}}, a
// nullable map as generators write it) and which has no "properties" was
// read as the shorthand, so the SDKs failed it 'property "type" is a
// []interface {}, not a schema', as if "type" were a parameter. "type"
// whose value is not a schema is a keyword like enum: the map is used as
// given, in every SDK; a parameter named type (a schema) is still the
// shorthand.
func TestTypeArraySchemaAsGiven(t *testing.T) {
	in := map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "number"}}
	got, err := Expand(in)
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Fatalf("Expand(%v) = %v, %v; want it as given", in, got, err)
	}
	param := map[string]any{"type": map[string]any{"type": "string"}}
	want := map[string]any{"type": "object", "properties": param, "required": []any{"type"}}
	if got, err := Expand(param); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Expand(%v) = %v, %v; want the shorthand %v", param, got, err, want)
	}
}
