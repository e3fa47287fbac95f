package aios

import (
	"strings"
	"testing"
)

// TestMapReturnsValuesRequiredChecked: HandleFunc's Returns check stopped
// at a map, so a result map[string]Row whose Returns schema requires each
// value's "id" (additionalProperties, patternProperties, or a property of
// the map) while Row writes it under another name or leaves it out with
// omitempty registered, and every call (or every call with an empty id)
// failed with InvalidResult. It panics at registration now, naming the
// tool and the path (*/id, a/id); a map whose values fit still registers.
func TestMapReturnsValuesRequiredChecked(t *testing.T) {
	type Row struct {
		ID string `json:"ident"`
	}
	type Out struct {
		ByName map[string]Row `json:"by_name"`
	}
	for _, c := range []struct {
		name, schema string
		want         []string
		reg          func(Tool)
	}{
		{"map result", `{"type":"object","additionalProperties":{"type":"object","required":["id"]}}`,
			[]string{`"*/id"`, "ident"},
			func(tl Tool) {
				HandleFunc(tl, func(c *Call, in map[string]any) (map[string]Row, error) { return nil, nil })
			}},
		{"nested map", `{"type":"object","properties":{"by_name":{"type":"object","patternProperties":{"^[a-z]+$":{"type":"object","required":["id"]}}}}}`,
			[]string{`"by_name/*/id"`, "ident"},
			func(tl Tool) {
				HandleFunc(tl, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
			}},
		{"map property", `{"type":"object","properties":{"a":{"type":"object","required":["id"]}}}`,
			[]string{`"a/id"`, "ident"},
			func(tl Tool) {
				HandleFunc(tl, func(c *Call, in map[string]any) (map[string]*Row, error) { return nil, nil })
			}},
	} {
		got := registerPanic(t, "probe-map-returns", func() { c.reg(Tool{Name: "probe-map-returns", Returns: Schema(c.schema)}) })
		for _, want := range append([]string{"probe-map-returns"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the Returns schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	if got := registerPanic(t, "probe-map-returns", func() {
		HandleFunc(Tool{Name: "probe-map-returns", Returns: Schema(`{"type":"object","additionalProperties":{"type":"object","required":["ident"]}}`)},
			func(c *Call, in map[string]any) (map[string]Row, error) { return nil, nil })
	}); got != "" {
		t.Fatalf("a map result whose values fit the Returns schema was refused: %s", got)
	}
}
