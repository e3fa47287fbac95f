package aios

import (
	"strings"
	"testing"
)

// TestReturnsEnumCheckedAgainstField: HandleFunc judged a Returns
// property by its schema's type alone, so an enum or const written
// without one ({"enum": ["ok", "failed"]} over an int result field)
// registered and the host refused every result that had the field
// (InvalidResult). A field none of whose listed values it is written as
// panics at registration naming the tool, the path and the field; an
// enum listing a value of the field's JSON type registers.
func TestReturnsEnumCheckedAgainstField(t *testing.T) {
	type Out struct {
		Status int    `json:"status"`
		Mode   string `json:"mode"`
	}
	reg := func(s string) func() {
		return func() {
			HandleFunc(Tool{Name: "probe-retenum", Returns: Schema(s)}, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
		}
	}
	for _, c := range []struct {
		schema string
		want   []string
	}{
		{`{"type":"object","properties":{"status":{"enum":["ok","failed"]}}}`, []string{`"status"`, "enum", "Status", "integer"}},
		{`{"type":"object","properties":{"mode":{"const":3}}}`, []string{`"mode"`, "const", "Mode", "string"}},
	} {
		got := registerPanic(t, "probe-retenum", reg(c.schema))
		for _, want := range append([]string{"probe-retenum"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the schema naming %s: panic %q", c.schema, want, got)
			}
		}
	}
	for _, fits := range []string{
		`{"type":"object","properties":{"status":{"enum":[0,1,2]},"mode":{"enum":["a",null]}}}`,
		`{"type":"object","properties":{"status":{"enum":[1,"one"]},"mode":{"const":"a"}}}`,
	} {
		if got := registerPanic(t, "probe-retenum", reg(fits)); got != "" {
			t.Errorf("%s: HandleFunc panicked %q", fits, got)
		}
	}
}
