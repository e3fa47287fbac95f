package aios

import (
	"strings"
	"testing"
)

// TestNullableTypeListChecked: HandleFunc judged a property's type only
// when the schema wrote it as a string, so the nullable form generators
// write, {"type": ["string", "null"]}, was not judged at all: over an int
// field it registered and every call sending a string failed as the
// caller's InvalidParams, and an int64 result field under a Returns
// property typed ["string", "null"] registered while the host refused
// every result. A list of one type and "null" is judged as that type
// (null decodes into any field); a list of several types is still
// left to the host.
func TestNullableTypeListChecked(t *testing.T) {
	type In struct {
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
	}
	type Out struct {
		ID int64 `json:"id"`
	}
	for _, c := range []struct {
		name string
		reg  func()
		want []string
	}{
		{"params property", func() {
			HandleFunc(Tool{Name: "probe-nullable", Parameters: Schema(`{"type":"object","properties":{"count":{"type":["string","null"]}}}`)},
				func(c *Call, in In) (any, error) { return nil, nil })
		}, []string{`"count"`, `"string"`, "Count", "int"}},
		{"params items", func() {
			HandleFunc(Tool{Name: "probe-nullable", Parameters: Schema(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":["null","integer"]}}}}`)},
				func(c *Call, in In) (any, error) { return nil, nil })
		}, []string{`"tags/*"`, `"integer"`, "string"}},
		{"returns property", func() {
			HandleFunc(Tool{Name: "probe-nullable", Returns: Schema(`{"type":"object","properties":{"id":{"type":["string","null"]}},"required":["id"]}`)},
				func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
		}, []string{`"id"`, `"string"`, "ID", "int64"}},
	} {
		got := registerPanic(t, "probe-nullable", c.reg)
		for _, want := range append([]string{"probe-nullable"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	for _, fits := range []func(){
		func() {
			HandleFunc(Tool{Name: "probe-nullable", Parameters: Schema(`{"type":"object","properties":{"count":{"type":["integer","null"]},"tags":{"type":["array","null"],"items":{"type":["string","null"]}}}}`)},
				func(c *Call, in In) (any, error) { return nil, nil })
		},
		func() {
			HandleFunc(Tool{Name: "probe-nullable", Returns: Schema(`{"type":["object","null"],"properties":{"id":{"type":["integer","null"]}}}`)},
				func(c *Call, in map[string]any) (*Out, error) { return nil, nil })
		},
	} {
		if got := registerPanic(t, "probe-nullable", fits); got != "" {
			t.Errorf("HandleFunc panicked %q", got)
		}
	}
}
