package native

import (
	"reflect"
	"testing"
)

// The JS and Python SDKs take a map with a "properties" object (and no
// string "type") as a whole schema, adding type object; native.JSONSchema
// took it as the shorthand: "properties" and "required" became parameter
// names (a required parameter called "properties"), or it panicked on
// required's list. One declared schema, different tools.
func TestJSONSchemaPropertiesIsWhole(t *testing.T) {
	got := func() (m map[string]any, p any) {
		defer func() { p = recover() }()
		return JSONSchema(map[string]any{
			"properties": map[string]any{"x": map[string]any{"type": "string"}},
			"required":   []any{"x"},
		}), nil
	}
	m, p := got()
	want := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}, "required": []any{"x"}}
	if p != nil || !reflect.DeepEqual(m, want) {
		t.Fatalf("got %#v (panic %v), want %#v", m, p, want)
	}
	// $schema without type: whole, type object added (as in JS and Python).
	d := JSONSchema(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "required": []any{"a"}})
	if d["type"] != "object" || d["$schema"] == nil {
		t.Fatalf("got %#v", d)
	}
}
