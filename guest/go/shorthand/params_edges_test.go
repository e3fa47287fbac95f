package shorthand

import (
	"reflect"
	"testing"
)

// TestParamsTakeObjects: a parameters schema of keywords without a type
// ({"anyOf": [{"required": ["x"]}, {"required": ["y"]}]}), which Expand
// returns as given, took any value (required applies to objects only),
// so a caller's "hello" reached the tool as its params; Params gives it
// "type": "object", as Expand gives a whole schema without a type, and
// leaves a typed schema and the shorthand as Expand makes them.
func TestParamsTakeObjects(t *testing.T) {
	anyOf := []any{map[string]any{"required": []any{"x"}}, map[string]any{"required": []any{"y"}}}
	in := map[string]any{"anyOf": anyOf}
	got, err := Params(in)
	if want := map[string]any{"type": "object", "anyOf": anyOf}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Params(%v) = %v, %v; want %v", in, got, err, want)
	}
	if _, typed := in["type"]; typed {
		t.Errorf("Params changed its argument: %v", in)
	}
	for _, s := range []map[string]any{
		{"type": []any{"object", "null"}},
		{"name": map[string]any{"type": "string"}},
		nil,
	} {
		want, _ := Expand(s)
		if s == nil {
			want = map[string]any{"type": "object"}
		}
		if got, err := Params(s); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Params(%v) = %v, %v; want %v", s, got, err, want)
		}
	}
}
