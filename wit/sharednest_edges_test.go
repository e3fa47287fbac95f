package wit

import (
	"strings"
	"testing"
)

// TestJSONCompatibleDepthThroughSharedTypes: JSONCompatible refuses a type
// nested more than 200 levels, but a type met a second time was skipped
// whatever the depth it was met at, so a record whose fields nest one
// shared type in another (a: c, b: list…<c>, d: list…<b's type>) passed
// at any depth: here 640 levels, beyond the 512 FromJSON takes, so the
// tool's schema accepted values the call then refused. A type met again
// deeper than before is checked again.
func TestJSONCompatibleDepthThroughSharedTypes(t *testing.T) {
	wrap := func(t *Type, n int) *Type {
		for i := 0; i < n; i++ {
			t = &Type{Kind: KindList, Elem: t}
		}
		return t
	}
	c := wrap(Primitive(KindU8), 190)
	e1 := wrap(c, 150)
	e2 := wrap(e1, 150)
	e3 := wrap(e2, 150)
	rec := &Type{Kind: KindRecord, Fields: []Field{{Name: "a", Type: c}, {Name: "b", Type: e1}, {Name: "c", Type: e2}, {Name: "d", Type: e3}}}
	err := JSONCompatible(rec)
	if err == nil || !strings.Contains(err.Error(), "type nested more than 200 levels deep") || !strings.HasPrefix(err.Error(), "$.b") {
		t.Errorf("record nesting 640 levels through shared types: %v", err)
	}
	f := &Func{Name: "f", Params: []Param{{Name: "r", Type: rec}}}
	if err := FuncJSONCompatible(f); err == nil {
		t.Errorf("function taking it: accepted")
	}
	// Sharing that stays within the bound is still accepted.
	ok := &Type{Kind: KindRecord, Fields: []Field{{Name: "a", Type: wrap(Primitive(KindU8), 50)}}}
	ok.Fields = append(ok.Fields, Field{Name: "b", Type: wrap(ok.Fields[0].Type, 50)}, Field{Name: "c", Type: ok.Fields[0].Type})
	if err := JSONCompatible(ok); err != nil {
		t.Errorf("record nesting 101 levels: %v", err)
	}
}
