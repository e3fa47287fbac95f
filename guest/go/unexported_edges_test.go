package aios

import (
	"strings"
	"testing"
)

// TestRequiredUnexportedFieldSaysExport: a params or result struct whose
// field for a required property is unexported (struct{ name string }, or
// tagged `json:"name"`, which encoding/json ignores as well) was refused
// with "has no field for it (its JSON field names: ): … tag a field
// `json:"name"`", advice the author had followed or that changes nothing:
// an unexported field is neither read nor written whatever its tag. The
// panic now names the unexported field and says to export it.
func TestRequiredUnexportedFieldSaysExport(t *testing.T) {
	type In struct {
		name  string
		Count int `json:"count"`
	}
	type Out struct {
		total int
	}
	for _, c := range []struct {
		what string
		reg  func()
		want []string
	}{
		{"params", func() {
			HandleFunc(Tool{Name: "probe-unexported", Parameters: Schema(`{"type":"object","required":["name"]}`)},
				func(c *Call, in In) (any, error) { return in.name, nil })
		}, []string{"probe-unexported", `"name"`, "field name is unexported", "export it"}},
		{"params by pointer", func() {
			HandleFunc(Tool{Name: "probe-unexported", Parameters: Schema(`{"type":"object","required":["name"]}`)},
				func(c *Call, in *In) (any, error) { return in.name, nil })
		}, []string{"probe-unexported", `"name"`, "*aios.In", "field name is unexported", "export it"}},
		{"result", func() {
			HandleFunc(Tool{Name: "probe-unexported", Returns: Schema(`{"type":"object","required":["total"]}`)},
				func(c *Call, in map[string]any) (Out, error) { return Out{total: 1}, nil })
		}, []string{"probe-unexported", `"total"`, "field total is unexported", "export it"}},
	} {
		got := registerPanic(t, "probe-unexported", c.reg)
		for _, want := range c.want {
			if !strings.Contains(got, want) {
				t.Errorf("%s: the panic does not say %q: %q", c.what, want, got)
			}
		}
	}
}
