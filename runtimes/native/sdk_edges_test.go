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

// A whole schema without a type made of keywords whose values are not
// schemas ({"enum": [...]}, {"anyOf": [...]}, {"$ref": ...}) is used as
// given, as by the JS, Python and Go guest SDKs (p24's leftover: it
// panicked here as a malformed shorthand, while a Go guest sent it). A
// property named like a keyword, whose value is a schema, is still the
// shorthand.
func TestJSONSchemaKeywordSchemasAsGiven(t *testing.T) {
	for _, s := range []map[string]any{
		{"enum": []any{"a", "b"}},
		{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}},
		{"$ref": "#/$defs/p", "$defs": map[string]any{"p": map[string]any{"type": "object"}}},
		{"description": "anything"},
	} {
		// Given type object: params are an object
		// (shorthand.TestParamsTakeObjects).
		want := map[string]any{"type": "object"}
		for k, v := range s {
			want[k] = v
		}
		if got := JSONSchema(s); !reflect.DeepEqual(got, want) {
			t.Errorf("JSONSchema(%#v) = %#v, want it as given with type object", s, got)
		}
	}
	got := JSONSchema(map[string]any{"enum": map[string]any{"type": "string"}})
	want := map[string]any{"type": "object", "properties": map[string]any{"enum": map[string]any{"type": "string"}}, "required": []any{"enum"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a property named enum: %#v, want %#v", got, want)
	}
}
