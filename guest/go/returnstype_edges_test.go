package aios

import (
	"strings"
	"testing"
	"time"
)

// TestReturnsTypeCheckedAgainstResultType: HandleFunc held the Returns
// schema to the result type's required fields only, so a property whose
// schema type the field is never written as (an int64 id under "type":
// "string", a string count under "integer", a slice under "object")
// registered and every call failed with InvalidResult ("at /id: expected
// string, got integer"). It panics at registration naming the tool, the
// property's path, its type and the field, as Parameters mismatches do; a
// field written as the schema's type (an int under "number", a []byte or
// time.Time under "string", a ",string" int under "string") still
// registers.
func TestReturnsTypeCheckedAgainstResultType(t *testing.T) {
	type Row struct {
		Count string `json:"count"`
	}
	type Out struct {
		ID   int64          `json:"id"`
		Rows []Row          `json:"rows"`
		Tags []string       `json:"tags"`
		Meta map[string]int `json:"meta"`
	}
	for _, c := range []struct {
		name, schema string
		want         []string
	}{
		{"int as string", `{"type":"object","properties":{"id":{"type":"string"}}}`, []string{`"id"`, `"string"`, "ID", "int64"}},
		{"nested", `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"count":{"type":"integer"}}}}}}`,
			[]string{`"rows/*/count"`, `"integer"`, "Count", "string"}},
		{"slice as object", `{"type":"object","properties":{"tags":{"type":"object"}}}`, []string{`"tags"`, `"object"`, "[]string"}},
		{"map as array", `{"type":"object","properties":{"meta":{"type":"array"}}}`, []string{`"meta"`, `"array"`, "map[string]int"}},
	} {
		got := registerPanic(t, "probe-returns-type", func() {
			HandleFunc(Tool{Name: "probe-returns-type", Returns: Schema(c.schema)}, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
		})
		for _, want := range append([]string{"probe-returns-type"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the Returns schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	type Fits struct {
		N     int       `json:"n"`
		B     []byte    `json:"b"`
		When  time.Time `json:"when"`
		Q     int       `json:"q,string"`
		Any   any       `json:"any"`
		F     float64   `json:"f"`
		P     *int      `json:"p"`
		Child *Row      `json:"child"`
	}
	fits := `{"type":"object","properties":{"n":{"type":"number"},"b":{"type":"string"},"when":{"type":"string"},"q":{"type":"string"},` +
		`"any":{"type":"boolean"},"f":{"type":"integer"},"p":{"type":"integer"},"child":{"type":"object"}}}`
	if got := registerPanic(t, "probe-returns-type", func() {
		HandleFunc(Tool{Name: "probe-returns-type", Returns: Schema(fits)}, func(c *Call, in map[string]any) (Fits, error) { return Fits{}, nil })
	}); got != "" {
		t.Fatalf("a result type whose fields fit the Returns schema was refused: %s", got)
	}
}
