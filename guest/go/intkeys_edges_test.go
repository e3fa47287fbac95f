package aios

import (
	"strings"
	"testing"
)

// TestIntegerKeyedMapPropertyNamesChecked: a params map with integer keys
// (map[int]string, map[uint8]bool) takes only members whose names are
// integers of its key type, but its schema's properties and required names
// were not judged: one naming "a" (or "300" for a uint8 key, or "-1" for
// a uint) loaded, and every call sending that member failed as the caller's
// InvalidParams, `at /m/a: cannot unmarshal number a into … of type int`.
// HandleFunc panics at registration now, naming the property and the key
// type; integer names that fit still load.
func TestIntegerKeyedMapPropertyNamesChecked(t *testing.T) {
	type In struct {
		M map[int]string  `json:"m"`
		B map[uint8]bool  `json:"b"`
		U map[uint]string `json:"u"`
	}
	for _, c := range []struct{ name, schema, path, key string }{
		{"probe-intkey-prop", `{"type":"object","properties":{"m":{"type":"object","properties":{"a":{"type":"string"}}}}}`, `"m/a"`, "int"},
		{"probe-intkey-req", `{"type":"object","properties":{"m":{"type":"object","required":["first"]}}}`, `"m/first"`, "int"},
		{"probe-intkey-range", `{"type":"object","properties":{"b":{"type":"object","properties":{"300":{"type":"boolean"}}}}}`, `"b/300"`, "uint8"},
		{"probe-intkey-sign", `{"type":"object","properties":{"u":{"type":"object","properties":{"-1":{"type":"string"}}}}}`, `"u/-1"`, "uint"},
	} {
		got := registerPanic(t, c.name, func() {
			HandleFunc(Tool{Name: c.name, Parameters: Schema(c.schema)}, func(c *Call, in In) (any, error) { return nil, nil })
		})
		for _, w := range []string{"tool " + c.name + ":", c.path, "key type " + c.key} {
			if !strings.Contains(got, w) {
				t.Errorf("%s: panic %q; want one naming %s", c.name, got, w)
			}
		}
	}
	probeTool(t, "probe-intkey-ok", func() {
		HandleFunc(Tool{Name: "probe-intkey-ok", Parameters: Schema(`{"type":"object","properties":{
			"m":{"type":"object","properties":{"-7":{"type":"string"}},"required":["1"]},
			"b":{"type":"object","properties":{"255":{"type":"boolean"}}}}}`)},
			func(c *Call, in In) (any, error) { return len(in.M) + len(in.B), nil })
	})
	if v, terr := serveResult(t, "probe-intkey-ok", map[string]any{"m": map[string]any{"-7": "x", "1": "y"}, "b": map[string]any{"255": true}}); terr != nil || v != int64(3) {
		t.Errorf("a call with integer names: %v, %v; want 3", v, terr)
	}
}
