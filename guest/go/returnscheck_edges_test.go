package aios

import (
	"strings"
	"testing"
)

// TestTypedResultMatchesReturns: HandleFunc checked its params type
// against the Parameters schema at registration, but not its result type
// against Returns, which the host holds every result to. A result struct
// whose field encoding/json writes under another name than a property
// Returns requires (Sum for "sum": encoding, unlike decoding, is
// case-sensitive) made every call InvalidResult ("violates its return
// schema"), and one whose field has omitempty failed only the calls whose
// value was zero (a count of 0), far from the cause. Both panic at
// registration now, naming the tool, the property and the field.
func TestTypedResultMatchesReturns(t *testing.T) {
	returns := Schema(`{"type":"object","properties":{"sum":{"type":"integer"},"count":{"type":"integer"}},"required":["sum","count"]}`)
	type untagged struct {
		Sum   int64
		Count int `json:"count"`
	}
	type omitted struct {
		Sum   int64 `json:"sum"`
		Count int   `json:"count,omitempty"`
	}
	for _, c := range []struct {
		name string
		reg  func(name string)
		want []string
	}{
		{"returns-case", func(n string) {
			HandleFunc(Tool{Name: n, Returns: returns}, func(c *Call, in map[string]any) (untagged, error) { return untagged{}, nil })
		}, []string{`"sum"`, "Sum", "count"}},
		{"returns-omitempty", func(n string) {
			HandleFunc(Tool{Name: n, Returns: returns}, func(c *Call, in map[string]any) (*omitted, error) { return &omitted{}, nil })
		}, []string{`"count"`, "Count", "omitempty"}},
		{"returns-shorthand", func(n string) { // the shorthand's properties are required
			HandleFunc(Tool{Name: n, Returns: map[string]any{"total": map[string]any{"type": "integer"}}},
				func(c *Call, in map[string]any) (struct{ Total int }, error) { return struct{ Total int }{}, nil })
		}, []string{`"total"`, "Total"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "probe-" + c.name
			got := registerPanic(t, name, func() { c.reg(name) })
			if !strings.Contains(got, name) || !strings.Contains(got, "Returns") {
				t.Fatalf("registration panicked with %q, want a panic naming %s, its Returns and %q", got, name, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Fatalf("registration panicked with %q, want it to name %q", got, w)
				}
			}
		})
	}
	// What encoding/json writes under the required names registers: tags,
	// embedded structs, omitempty on a property Returns does not require,
	// a map or any result (not judged), a custom marshaler.
	type base struct {
		Sum int64 `json:"sum"`
	}
	type ok struct {
		base
		Count int    `json:"count"`
		Note  string `json:"note,omitempty"`
	}
	probeTool(t, "probe-returns-ok", func() {
		HandleFunc(Tool{Name: "probe-returns-ok", Returns: returns}, func(c *Call, in map[string]any) (ok, error) { return ok{}, nil })
	})
	probeTool(t, "probe-returns-map", func() {
		HandleFunc(Tool{Name: "probe-returns-map", Returns: returns}, func(c *Call, in map[string]any) (map[string]int, error) { return nil, nil })
	})
	v, terr := serveResult(t, "probe-returns-ok", nil)
	if m, _ := v.(map[string]any); terr != nil || m["sum"] != int64(0) || m["count"] != int64(0) {
		t.Fatalf("%#v %+v", v, terr)
	}
}
