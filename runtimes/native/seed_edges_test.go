package native

import (
	"reflect"
	"testing"
)

// TestSeedJSONSchema: seed 000 §9.3 writes a Rust tool's parameters
// as json_schema!({ "object_id": {...}, "language": {...} }) — a map of
// property schemas, the shorthand the Python (§9.4) and TypeScript (§9.5)
// SDKs take too — and §9.1 says the same parameters are indistinguishable
// whichever runtime registers them. JSONSchema is the Go SDK's json_schema!:
// the same rule as sdk/python and the JS prelude (a property is required
// unless it has a default or optional: true, which is removed; a map with a
// string type or $schema is a whole schema, kept).
func TestSeedJSONSchema(t *testing.T) {
	got := JSONSchema(map[string]any{
		"object_id": map[string]any{"type": "string", "description": "ObjectId of source file"},
		"language":  map[string]any{"type": "string", "enum": []any{"rust", "python", "typescript"}},
	})
	want := map[string]any{"type": "object", "properties": map[string]any{
		"object_id": map[string]any{"type": "string", "description": "ObjectId of source file"},
		"language":  map[string]any{"type": "string", "enum": []any{"rust", "python", "typescript"}},
	}, "required": []any{"language", "object_id"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	// The TypeScript seed's summarize: max_words has a default.
	got = JSONSchema(map[string]any{
		"object_id": map[string]any{"type": "string"},
		"max_words": map[string]any{"type": "integer", "default": 200},
		"pages":     map[string]any{"type": "string", "optional": true},
	})
	want = map[string]any{"type": "object", "properties": map[string]any{
		"object_id": map[string]any{"type": "string"},
		"max_words": map[string]any{"type": "integer", "default": 200},
		"pages":     map[string]any{"type": "string"},
	}, "required": []any{"object_id"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	whole := map[string]any{"type": "object", "properties": map[string]any{}}
	if got := JSONSchema(whole); !reflect.DeepEqual(got, whole) {
		t.Fatalf("a whole schema changed: %#v", got)
	}
	if got := JSONSchema(nil); !reflect.DeepEqual(got, map[string]any{"type": "object"}) {
		t.Fatalf("nil: %#v", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a property that is not a schema object did not panic")
		}
	}()
	JSONSchema(map[string]any{"x": "string"})
}
