package aios

import (
	"strings"
	"testing"
)

// TestEnumValuesCheckedAgainstField: HandleFunc judged a property by its
// schema's "type" alone, so an enum or const written without one
// ({"enum": ["asc", "desc"]} over an int field, {"const": 5} over a
// string) registered, and every call sending a value the schema lists
// failed as the caller's InvalidParams ("cannot unmarshal string into
// Go struct field .order of type int"). Each enum member and the const
// must decode into the field; HandleFunc panics at registration naming
// the tool, the path, the member and the field.
func TestEnumValuesCheckedAgainstField(t *testing.T) {
	type In struct {
		Order int      `json:"order"`
		Mode  string   `json:"mode"`
		Ratio int      `json:"ratio"`
		Tags  []string `json:"tags"`
		Flag  bool     `json:"flag"`
	}
	reg := func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }
	for _, c := range []struct {
		name, schema string
		want         []string
	}{
		{"string enum into int", `{"type":"object","properties":{"order":{"enum":["asc","desc"]}}}`,
			[]string{`"order"`, `"asc"`, "Order", "int"}},
		{"const number into string", `{"type":"object","properties":{"mode":{"const":5}}}`,
			[]string{`"mode"`, "5", "Mode", "string"}},
		{"fraction into int", `{"type":"object","properties":{"ratio":{"enum":[1, 1.5]}}}`,
			[]string{`"ratio"`, "1.5", "Ratio", "int"}},
		{"items enum", `{"type":"object","properties":{"tags":{"type":"array","items":{"enum":["a", 2]}}}}`,
			[]string{`"tags/*"`, "2", "string"}},
		{"string into bool", `{"type":"object","properties":{"flag":{"enum":[true,"yes"]}}}`,
			[]string{`"flag"`, `"yes"`, "Flag", "bool"}},
	} {
		got := registerPanic(t, "probe-enumtype", func() { reg(Tool{Name: "probe-enumtype", Parameters: Schema(c.schema)}) })
		for _, want := range append([]string{"probe-enumtype", "enum"}, c.want...) {
			if c.name == "const number into string" && want == "enum" {
				want = "const"
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	for _, fits := range []string{
		`{"type":"object","properties":{"order":{"enum":[1,2,3]},"mode":{"enum":["a","b"]},"ratio":{"const":2.0},"tags":{"type":"array","items":{"enum":["a","b"]}},"flag":{"const":true}}}`,
		`{"type":"object","properties":{"mode":{"type":["string","null"],"enum":["a",null]}}}`,
	} {
		if got := registerPanic(t, "probe-enumtype", func() { reg(Tool{Name: "probe-enumtype", Parameters: Schema(fits)}) }); got != "" {
			t.Errorf("%s: HandleFunc panicked %q", fits, got)
		}
	}
}
