package schema

import (
	"strings"
	"testing"
	"time"
)

// uniqueItems under a recursive schema: the reference hashes the whole
// subtree of each array it checks, at every level, so a caller's value 400
// arrays deep over 400 000 integers held a core for 4 minutes before the
// provider was asked, outside the call's deadline (100 deep: 85 s). Such a
// schema now has the value's arrays sized first, and a value whose arrays
// hold more than maxUniqueWork values in all (every level counted) is
// refused at once; ordinary values are checked as before.
func TestRecursiveUniqueItemsBounded(t *testing.T) {
	rec := MustCompile("u@1.0.0", map[string]any{"type": "array", "uniqueItems": true,
		"items": map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"$ref": "#"}}}})
	nest := func(depth, leaf int) any {
		l := make([]any, leaf)
		for i := range l {
			l[i] = int64(i)
		}
		var v any = l
		for d := 0; d < depth; d++ {
			arr := []any{v}
			for i := 0; i < 21; i++ {
				arr = append(arr, int64(i))
			}
			v = arr
		}
		return v
	}
	done := make(chan error, 1)
	go func() { done <- rec.Validate(nest(400, 400_000)) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("validating a value 400 arrays deep over 400 000 integers ran past 15 s (it took 4 minutes)")
	}
	if err == nil || !strings.Contains(err.Error(), "uniqueItems") || !strings.Contains(err.Error(), "2000000") {
		t.Errorf("a value 400 arrays deep over 400 000 integers: %v, want a refusal naming uniqueItems and the bound", err)
	}
	// Ordinary values of the same schema are checked as before.
	if err := rec.Validate(nest(5, 1000)); err != nil {
		t.Errorf("5 levels over 1000 integers: %v", err)
	}
	if err := rec.Validate([]any{int64(1), []any{int64(2), int64(2)}}); err == nil || !strings.Contains(err.Error(), "/1") {
		t.Errorf("a duplicate one level down: %v, want a refusal at /1", err)
	}
	// A schema whose uniqueItems applies at one level is not bounded so: a
	// flat array past the bound, beside a deep tree, is checked, not refused.
	flat := MustCompile("f@1.0.0", map[string]any{"type": "object", "properties": map[string]any{
		"ids":  map[string]any{"type": "array", "uniqueItems": true},
		"tree": map[string]any{"$ref": "#/$defs/t"}},
		"$defs": map[string]any{"t": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/t"}}}})
	ids := make([]any, 2_100_000)
	for i := range ids {
		ids[i] = "" // strings: the reference hashes them cheaply
	}
	ids[0] = "x"
	if err := flat.Validate(map[string]any{"ids": ids, "tree": []any{[]any{}}}); err == nil || strings.Contains(err.Error(), "too large") {
		t.Errorf("a flat array with a duplicate: %v, want the duplicate found", err)
	}
}
