package aios

import (
	"reflect"
	"strings"
	"testing"
)

type taggedEmbedInner struct {
	X int64 `json:"x"`
}

// taggedEmbed embeds an unexported struct under a tag name: encoding/json
// reads and writes it as the member "in", an object, not as promoted
// fields.
type taggedEmbed struct {
	taggedEmbedInner `json:"in"`
	Name             string `json:"name"`
}

// taggedEmbedPtr embeds a pointer to it under a tag name, which
// encoding/json writes but panics setting.
type taggedEmbedPtr struct {
	*taggedEmbedInner `json:"in"`
	Name              string `json:"name"`
}

// TestTaggedUnexportedEmbeddedStructIsAField: an unexported embedded struct
// given a name by its tag (struct{ inner `json:"in"`; … }) is the member
// "in" to encoding/json, which reads and writes it like any field, but
// HandleFunc's check skipped it as an unexported field: a tool whose
// Parameters or Returns require "in" panicked at registration, "has no
// field for it", though every call would have worked, and its schema's
// "in" properties were never judged. It registers now, serves the member
// both ways, and a property type that does not fit it still panics. A
// pointer to it so embedded, which encoding/json writes but panics setting
// ("reflect.Value.Set using value obtained using unexported field": every
// call sending "in" was ProviderCrashed), is refused as a params type and
// still registers as a result type.
func TestTaggedUnexportedEmbeddedStructIsAField(t *testing.T) {
	schema := Schema(`{"type":"object","properties":{"in":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]},"name":{"type":"string"}},"required":["in","name"]}`)
	if got := registerPanic(t, "probe-tagembed", func() {
		HandleFunc(Tool{Name: "probe-tagembed", Parameters: schema, Returns: schema},
			func(c *Call, in taggedEmbed) (taggedEmbed, error) { in.X++; return in, nil })
		v, terr := serveResult(t, "probe-tagembed", map[string]any{"in": map[string]any{"x": int64(1)}, "name": "n"})
		want := map[string]any{"in": map[string]any{"x": int64(2)}, "name": "n"}
		if terr != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("a call: %v, %v; want %v", v, terr, want)
		}
	}); got != "" {
		t.Fatalf("a struct embedded under a tag name was refused: %s", got)
	}
	if got := registerPanic(t, "probe-tagembed-type", func() {
		HandleFunc(Tool{Name: "probe-tagembed-type", Parameters: Schema(`{"type":"object","properties":{"in":{"type":"string"}}}`)},
			func(c *Call, in taggedEmbed) (any, error) { return nil, nil })
	}); got == "" {
		t.Errorf("a string schema for the embedded struct \"in\" was not refused")
	}
	if got := registerPanic(t, "probe-tagembed-ptr", func() {
		HandleFunc(Tool{Name: "probe-tagembed-ptr"}, func(c *Call, in taggedEmbedPtr) (any, error) { return nil, nil })
	}); !strings.Contains(got, "tool probe-tagembed-ptr:") || !strings.Contains(got, "taggedEmbedInner") || !strings.Contains(got, "cannot set") {
		t.Errorf("a params type embedding *taggedEmbedInner as \"in\": panic %q; want one naming the field", got)
	}
	if got := registerPanic(t, "probe-tagembed-ptr-out", func() {
		HandleFunc(Tool{Name: "probe-tagembed-ptr-out", Returns: schema}, func(c *Call, in map[string]any) (taggedEmbedPtr, error) {
			return taggedEmbedPtr{&taggedEmbedInner{1}, "n"}, nil
		})
	}); got != "" {
		t.Errorf("a result type embedding *taggedEmbedInner as \"in\" was refused: %s", got)
	}
}
