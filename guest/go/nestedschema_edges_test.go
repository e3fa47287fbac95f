package aios

import (
	"strings"
	"testing"
)

// TestNestedSchemaCheckedAgainstParamsType: HandleFunc checked the
// Parameters schema against the params type at its top level only, so a
// property of a nested object, an array's items or a map params type
// whose schema type the Go type cannot take ("integer" into a string
// field of an options struct, "number" into an int of a list's elements,
// "string" into the values of a map[string]int64), or a nested property
// the schema requires and the nested struct has no field for, registered,
// and every call the schema let through failed as the caller's
// InvalidParams (or lost the value). They panic at registration now,
// naming the tool and the property's path; a nested schema that fits
// still registers.
func TestNestedSchemaCheckedAgainstParamsType(t *testing.T) {
	type Opts struct {
		Level string `json:"level"`
	}
	type Item struct {
		N int `json:"n"`
	}
	type In struct {
		Opts  Opts    `json:"opts"`
		Items []*Item `json:"items"`
	}
	for _, c := range []struct {
		name   string
		schema string
		want   []string
		reg    func(Tool)
	}{
		{"nested object", `{"type":"object","properties":{"opts":{"type":"object","properties":{"level":{"type":"integer"}}}}}`,
			[]string{`"opts/level"`, `"integer"`, "Level", "string"},
			func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }},
		{"array items", `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"number"}}}}}}`,
			[]string{`"items/*/n"`, `"number"`, "N", "int"},
			func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }},
		{"nested required", `{"type":"object","properties":{"opts":{"type":"object","required":["mode"]}}}`,
			[]string{`"opts/mode"`, "no field", "level"},
			func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }},
		{"map params", `{"type":"object","properties":{"name":{"type":"string"}}}`,
			[]string{`"name"`, `"string"`, "int64"},
			func(tl Tool) {
				HandleFunc(tl, func(c *Call, in map[string]int64) (any, error) { return nil, nil })
			}},
	} {
		got := registerPanic(t, "probe-nested", func() { c.reg(Tool{Name: "probe-nested", Parameters: Schema(c.schema)}) })
		for _, want := range append([]string{"probe-nested"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	fits := `{"type":"object","properties":{"opts":{"type":"object","properties":{"level":{"type":"string"}},"required":["level"]},` +
		`"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`
	if got := registerPanic(t, "probe-nested", func() {
		HandleFunc(Tool{Name: "probe-nested", Parameters: Schema(fits)}, func(c *Call, in In) (any, error) { return nil, nil })
	}); got != "" {
		t.Fatalf("a nested schema that fits the params type was refused: %s", got)
	}
	if got := registerPanic(t, "probe-nested", func() {
		HandleFunc(Tool{Name: "probe-nested", Parameters: Schema(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
			func(c *Call, in map[string]int64) (any, error) { return nil, nil })
	}); got != "" {
		t.Fatalf("an integer property of a map[string]int64 params type was refused: %s", got)
	}
}
