package aios

import (
	"strings"
	"testing"
)

// TestGoArrayLengthBoundBySchema: a params field that is a Go array
// ([2]float64) takes exactly its length from encoding/json, which drops
// the items past it and leaves the missing ones zero, without an error:
// under a schema letting any number of items through, a caller's
// [1, 2, 3] reached the handler as [1, 2], its third item lost, and [1]
// as [1, 0]. HandleFunc panics at registration unless the schema holds
// the array to the Go length (minItems and maxItems, or prefixItems with
// items false), naming the tool, the path and the field.
func TestGoArrayLengthBoundBySchema(t *testing.T) {
	type In struct {
		Point [2]float64    `json:"point"`
		Boxes [][4]int      `json:"boxes"`
		Tags  []string      `json:"tags"`
		Grid  [3]([2]int64) `json:"grid"`
	}
	reg := func(tl Tool) { HandleFunc(tl, func(c *Call, in In) (any, error) { return nil, nil }) }
	for _, c := range []struct {
		name, schema string
		want         []string
	}{
		{"unbounded", `{"type":"object","properties":{"point":{"type":"array","items":{"type":"number"}}}}`,
			[]string{`"point"`, "Point", "[2]float64", "2 items", "minItems"}},
		{"too long", `{"type":"object","properties":{"point":{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":3}}}`,
			[]string{`"point"`, "[2]float64", "maxItems"}},
		{"too short", `{"type":"object","properties":{"point":{"type":"array","minItems":1,"maxItems":2}}}`,
			[]string{`"point"`, "[2]float64", "minItems"}},
		{"items of a slice", `{"type":"object","properties":{"boxes":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}}`,
			[]string{`"boxes/*"`, "[4]int"}},
		{"inner array", `{"type":"object","properties":{"grid":{"type":"array","minItems":3,"maxItems":3,"items":{"type":"array"}}}}`,
			[]string{`"grid/*"`, "[2]int64"}},
	} {
		got := registerPanic(t, "probe-goarray", func() { reg(Tool{Name: "probe-goarray", Parameters: Schema(c.schema)}) })
		for _, want := range append([]string{"probe-goarray"}, c.want...) {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the schema naming %s: panic %q", c.name, want, got)
			}
		}
	}
	for _, fits := range []string{
		`{"type":"object","properties":{"point":{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2},"tags":{"type":"array","items":{"type":"string"}}}}`,
		`{"type":"object","properties":{"point":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}],"items":false,"minItems":2}}}`,
		`{"type":"object","properties":{"boxes":{"type":"array","items":{"type":"array","items":{"type":"integer"},"minItems":4,"maxItems":4}}}}`,
		`{"type":"object","properties":{"grid":{"type":"array","minItems":3,"maxItems":3,"items":{"type":"array","minItems":2,"maxItems":2}}}}`,
		`{"type":"object","properties":{"point":{"description":"any value: encoding/json refuses what is not an array"}}}`,
	} {
		if got := registerPanic(t, "probe-goarray", func() { reg(Tool{Name: "probe-goarray", Parameters: Schema(fits)}) }); got != "" {
			t.Errorf("%s: HandleFunc panicked %q", fits, got)
		}
	}
}
