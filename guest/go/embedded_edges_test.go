package aios

import (
	"reflect"
	"testing"
)

// TestEmbeddedFieldShadowed: HandleFunc's registration check matched
// a schema property to the first field of that JSON name it found, an
// embedded struct's before the params struct's own, where encoding/json
// decodes into the shallowest (struct{ Base; ID int64 } with Base.ID a
// string: the outer ID wins). A valid guest — schema "id": integer, the
// outer ID an int64 — failed to load ("decodes it into field ID of type
// string"). And an embedded struct that embeds itself through a pointer
// (a linked node type) made the check recurse until the guest's stack ran
// out. The check now picks fields as encoding/json does: the shallowest,
// a tagged one among equals, none when still ambiguous, each embedded
// type once.
func TestEmbeddedFieldShadowed(t *testing.T) {
	type Base struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	}
	type In struct {
		Base
		ID int64 `json:"id"`
	}
	schema := Schema(`{"type":"object","properties":{"id":{"type":"integer"},"kind":{"type":"string"}},"required":["id","kind"]}`)
	if got := registerPanic(t, "probe-shadow", func() {
		HandleFunc(Tool{Name: "probe-shadow", Parameters: schema}, func(c *Call, in In) (map[string]any, error) {
			return map[string]any{"id": in.ID, "kind": in.Kind}, nil
		})
	}); got != "" {
		t.Fatalf("a valid params type was refused: %s", got)
	}
	probeTool(t, "probe-shadow", func() {
		HandleFunc(Tool{Name: "probe-shadow", Parameters: schema}, func(c *Call, in In) (map[string]any, error) {
			return map[string]any{"id": in.ID, "kind": in.Kind}, nil
		})
	})
	v, terr := serveResult(t, "probe-shadow", map[string]any{"id": int64(7), "kind": "k"})
	if want := map[string]any{"id": int64(7), "kind": "k"}; terr != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("%#v %+v, want %#v", v, terr, want)
	}

	// The shadowed field is still judged where it is the one decoded into.
	type Bad struct {
		Base
		Other int64
	}
	if got := registerPanic(t, "probe-shadow-bad", func() {
		HandleFunc(Tool{Name: "probe-shadow-bad", Parameters: schema}, func(c *Call, in Bad) (any, error) { return nil, nil })
	}); got == "" {
		t.Fatal("Base.ID (a string) for the integer \"id\" was not refused")
	}

	type Node struct {
		*Node
		Name string `json:"name"`
	}
	if got := registerPanic(t, "probe-node", func() {
		HandleFunc(Tool{Name: "probe-node", Parameters: Schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
			func(c *Call, in Node) (any, error) { return in.Name, nil })
	}); got != "" {
		t.Fatalf("a self-embedding params type was refused: %s", got)
	}
}
