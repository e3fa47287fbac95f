package aios

import (
	"strings"
	"testing"
)

// TestArrayItemsTypeChecked: HandleFunc checks a property's schema type
// against the Go value that takes it, nested objects and arrays' items
// included, but of an array's items it judged only their properties,
// never their own "type": a Tags []int under {"type":"array","items":
// {"type":"string"}} loaded, and every call sending a tag failed as the
// caller's InvalidParams ("at /tags/0: cannot unmarshal string … of type
// int"); a result of []int, or a map[string]int, whose Returns gives the
// items or members the type "string" loaded, and the host refused every
// result that had one. Each panics at registration now, naming the path
// ("tags/*") and the Go type; items that fit still load.
func TestArrayItemsTypeChecked(t *testing.T) {
	type In struct {
		Tags [][]int `json:"tags"`
	}
	type Out struct {
		Tags   []int          `json:"tags"`
		Counts map[string]int `json:"counts"`
	}
	for _, c := range []struct {
		name string
		reg  func(name string)
		want []string
	}{
		{"probe-items-in", func(name string) {
			HandleFunc(Tool{Name: name, Parameters: Schema(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`)},
				func(c *Call, in In) (any, error) { return nil, nil })
		}, []string{`"tags/*"`, `"string"`, "[]int"}},
		{"probe-items-in-nested", func(name string) {
			HandleFunc(Tool{Name: name, Parameters: Schema(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}}}`)},
				func(c *Call, in In) (any, error) { return nil, nil })
		}, []string{`"tags/*/*"`, `"boolean"`, "int"}},
		{"probe-items-in-top", func(name string) {
			HandleFunc(Tool{Name: name, Parameters: Schema(`{"type":"array","items":{"type":"object"}}`)},
				func(c *Call, in []string) (any, error) { return nil, nil })
		}, []string{`"*"`, `"object"`, "string"}},
		{"probe-items-out", func(name string) {
			HandleFunc(Tool{Name: name, Returns: Schema(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`)},
				func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
		}, []string{`"tags/*"`, `"string"`, "integer"}},
		{"probe-items-out-top", func(name string) {
			HandleFunc(Tool{Name: name, Returns: Schema(`{"type":"array","items":{"type":"string"}}`)},
				func(c *Call, in map[string]any) ([]int, error) { return nil, nil })
		}, []string{`"*"`, `"string"`, "integer"}},
		{"probe-members-out", func(name string) {
			HandleFunc(Tool{Name: name, Returns: Schema(`{"type":"object","properties":{"counts":{"type":"object","additionalProperties":{"type":"string"}}}}`)},
				func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
		}, []string{`"counts/*"`, `"string"`, "integer"}},
	} {
		got := registerPanic(t, c.name, func() { c.reg(c.name) })
		for _, w := range append(c.want, "tool "+c.name+":") {
			if !strings.Contains(got, w) {
				t.Errorf("%s: panic %q; want one naming %s", c.name, got, w)
			}
		}
	}
	if got := registerPanic(t, "probe-items-ok", func() {
		HandleFunc(Tool{Name: "probe-items-ok",
			Parameters: Schema(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}}`),
			Returns:    Schema(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"number"}},"counts":{"additionalProperties":{"type":"integer"}}}}`)},
			func(c *Call, in In) (Out, error) { return Out{}, nil })
	}); got != "" {
		t.Errorf("items that fit were refused: %s", got)
	}
}
