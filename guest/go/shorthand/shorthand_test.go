package shorthand

import (
	"reflect"
	"strings"
	"testing"
)

// The rule, case by case (the JS and Python SDKs' tests run the same
// cases in their languages: TestKeywordSchemasAsGiven, TestSchemaWithoutTypeIsFull).
func TestExpand(t *testing.T) {
	str := map[string]any{"type": "string"}
	for _, tc := range []struct {
		in, want map[string]any
	}{
		{map[string]any{"type": "object", "x": 1}, map[string]any{"type": "object", "x": 1}},
		{map[string]any{"properties": map[string]any{"a": str}}, map[string]any{"type": "object", "properties": map[string]any{"a": str}}},
		{map[string]any{"$schema": "s", "required": []any{"a"}}, map[string]any{"type": "object", "$schema": "s", "required": []any{"a"}}},
		{map[string]any{"type": []any{"object", "null"}, "properties": map[string]any{}}, map[string]any{"type": []any{"object", "null"}, "properties": map[string]any{}}},
		{map[string]any{"enum": []any{"a"}}, map[string]any{"enum": []any{"a"}}},
		{map[string]any{"$ref": "#/$defs/p", "$defs": map[string]any{"p": str}}, map[string]any{"$ref": "#/$defs/p", "$defs": map[string]any{"p": str}}},
		{map[string]any{"b": str, "a": map[string]any{"type": "integer", "default": 1}, "c": map[string]any{"type": "string", "optional": true}, "enum": str},
			map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer", "default": 1}, "b": str, "c": str, "enum": str}, "required": []any{"b", "enum"}}},
		{map[string]any{}, map[string]any{"type": "object", "properties": map[string]any{}}},
	} {
		got, err := Expand(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Expand(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := Expand(map[string]any{"name": "string"}); err == nil || !strings.Contains(err.Error(), `property "name" is a string`) {
		t.Errorf("a shorthand property that is not a schema: %v", err)
	}
}
