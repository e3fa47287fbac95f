package shorthand

import (
	"reflect"
	"testing"
)

// A parameter named "properties" in the shorthand made the map a whole
// schema (it has a "properties" map), whose properties then held
// "type": "object", which the host refused at load; a "properties" map
// holding a value that is not a schema is that parameter's schema.
func TestPropertiesParameterShorthand(t *testing.T) {
	in := map[string]any{
		"name":       map[string]any{"type": "string"},
		"properties": map[string]any{"type": "object", "description": "the entity's properties"},
	}
	want := map[string]any{"type": "object", "properties": in, "required": []any{"name", "properties"}}
	got, err := Expand(in)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Expand(%v) = %v, %v; want %v", in, got, err, want)
	}
	whole := map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}, "b": true}}
	got, err = Expand(whole)
	if err != nil || got["type"] != "object" || !reflect.DeepEqual(got["properties"], whole["properties"]) {
		t.Fatalf("Expand(%v) = %v, %v; want it whole", whole, got, err)
	}
}
