package schema

import (
	"fmt"
	"testing"
)

// TestFastPathAllocatesNothing: docs/registry.md and doc.go promise that
// the fast path allocates nothing on success; that holds with the keywords
// whose failures it now words as the reference does (required, indexed
// enums, additionalProperties, uniqueItems) on the value's every level.
func TestFastPathAllocatesNothing(t *testing.T) {
	enum := make([]any, 20)
	for i := range enum {
		enum[i] = fmt.Sprint(i)
	}
	enum = append(enum, int64(5), 2.5)
	v := MustCompile("t", map[string]any{"type": "object", "required": []any{"a", "n"},
		"additionalProperties": map[string]any{"type": "integer", "maximum": 100.5},
		"properties": map[string]any{
			"a": map[string]any{"type": "string", "minLength": 1, "pattern": "^[0-9]+$", "enum": enum},
			"n": map[string]any{"enum": enum},
			"t": map[string]any{"type": "array", "uniqueItems": true, "items": map[string]any{"type": "number"}},
		}})
	val := map[string]any{"a": "7", "n": 2.5, "x": int64(3), "y": 4.0, "t": []any{int64(1), 2.5}}
	if !v.Fast() || v.fast.props[0].n.enumIdx == nil {
		t.Fatal("the schema is not on the fast path with an indexed enum")
	}
	if err := v.Validate(val); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { _ = v.Validate(val) }); a != 0 {
		t.Errorf("a valid value cost %v allocations", a)
	}
}
