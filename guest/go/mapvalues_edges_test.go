package aios

import (
	"strings"
	"testing"
)

// TestMapValuesSchemaCheckedAgainstParamsType: HandleFunc held a map's
// values to the schema's "properties" only, so a map described as JSON
// Schema describes one, by additionalProperties (or patternProperties),
// with a value type the map's Go element cannot take ("number" into the
// values of a map[string]int64, "string" into a map[string]int64 params
// type) registered, and every call the schema let through failed as the
// caller's InvalidParams ("params do not fit …: json: cannot unmarshal
// number 1.5 into … of type int64"). They panic at registration now,
// naming the tool and the path of the values (scores/*, *); a map whose
// values fit still registers.
func TestMapValuesSchemaCheckedAgainstParamsType(t *testing.T) {
	type In struct {
		Scores map[string]int64 `json:"scores"`
	}
	type Row struct {
		N int `json:"n"`
	}
	for _, c := range []struct {
		name   string
		schema string
		want   []string
		reg    func(Tool)
	}{
		{"nested map", `{"type":"object","properties":{"scores":{"type":"object","additionalProperties":{"type":"number"}}}}`,
			[]string{`"scores/*"`, `"number"`, "int64"},
			func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }},
		{"map params", `{"type":"object","additionalProperties":{"type":"string"}}`,
			[]string{`"*"`, `"string"`, "int64"},
			func(tl Tool) {
				HandleFunc(tl, func(c *Call, in map[string]int64) (any, error) { return nil, nil })
			}},
		{"pattern properties", `{"type":"object","properties":{"scores":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}`,
			[]string{`"scores/*"`, `"string"`, "int64"},
			func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }},
		{"map of structs", `{"type":"object","additionalProperties":{"type":"object","properties":{"n":{"type":"string"}}}}`,
			[]string{`"*/n"`, `"string"`, "N", "int"},
			func(tl Tool) {
				HandleFunc(tl, func(c *Call, in map[string]Row) (any, error) { return nil, nil })
			}},
	} {
		got := registerPanic(t, "probe-mapvalues", func() { c.reg(Tool{Name: "probe-mapvalues", Parameters: Schema(c.schema)}) })
		for _, want := range append([]string{"probe-mapvalues"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	fits := `{"type":"object","properties":{"scores":{"type":"object","additionalProperties":{"type":"integer"},"patternProperties":{"^x-":{"type":"integer"}}}}}`
	if got := registerPanic(t, "probe-mapvalues", func() {
		HandleFunc(Tool{Name: "probe-mapvalues", Parameters: Schema(fits)}, func(c *Call, in In) (any, error) { return nil, nil })
	}); got != "" {
		t.Fatalf("a map whose values fit the schema was refused: %s", got)
	}
	// A struct ignores members it has no field for: additionalProperties
	// does not describe its fields.
	if got := registerPanic(t, "probe-mapvalues", func() {
		HandleFunc(Tool{Name: "probe-mapvalues", Parameters: Schema(`{"type":"object","additionalProperties":{"type":"string"}}`)},
			func(c *Call, in Row) (any, error) { return nil, nil })
	}); got != "" {
		t.Fatalf("a struct params type was held to additionalProperties: %s", got)
	}
}
