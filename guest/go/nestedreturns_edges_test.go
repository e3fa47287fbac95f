package aios

import (
	"strings"
	"testing"
)

// TestNestedReturnsRequiredChecked: HandleFunc held the Returns schema's
// required properties to the result type at its top level only, so a
// nested object's required property that encoding/json writes under
// another name (Stats.Total is written "Total", not "total") or leaves out
// when empty (omitempty on a list row's id) registered, and every call, or
// every call with an empty value, failed with InvalidResult. Both panic at
// registration now, naming the tool and the property's path; a nested
// result type that fits still registers.
func TestNestedReturnsRequiredChecked(t *testing.T) {
	type Stats struct {
		Total int
	}
	type Row struct {
		ID string `json:"id,omitempty"`
	}
	type Out struct {
		Stats *Stats `json:"stats"`
		Rows  []Row  `json:"rows"`
	}
	for _, c := range []struct {
		name, schema string
		want         []string
	}{
		{"nested name", `{"type":"object","properties":{"stats":{"type":"object","required":["total"]}}}`,
			[]string{`"stats/total"`, "Total"}},
		{"items omitempty", `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","required":["id"]}}}}`,
			[]string{`"rows/*/id"`, "omitempty", "ID"}},
	} {
		got := registerPanic(t, "probe-nested-returns", func() {
			HandleFunc(Tool{Name: "probe-nested-returns", Returns: Schema(c.schema)}, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
		})
		for _, want := range append([]string{"probe-nested-returns"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the result type naming %s: panic %q", c.name, want, got)
			}
		}
	}
	fits := `{"type":"object","properties":{"stats":{"type":"object","required":["Total"]},"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}}}}}}`
	if got := registerPanic(t, "probe-nested-returns", func() {
		HandleFunc(Tool{Name: "probe-nested-returns", Returns: Schema(fits)}, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
	}); got != "" {
		t.Fatalf("a nested Returns schema that fits the result type was refused: %s", got)
	}
}
