package aios

import (
	"strings"
	"testing"
)

// TestParamsTypeMustTakeAnObject: params are a JSON object (the
// Parameters schema's type, "object" when none is given), but a typed
// handler whose params type cannot take one (a []string, a string, an
// int64) registered and every call failed as the caller's InvalidParams
// ("params do not fit []string: json: cannot unmarshal object into Go
// value of type []string"). HandleFunc panics at registration now, naming
// the tool and the type; a struct, a map and any still register.
func TestParamsTypeMustTakeAnObject(t *testing.T) {
	for name, reg := range map[string]func(){
		"[]string": func() {
			HandleFunc(Tool{Name: "probe-kind"}, func(c *Call, in []string) (any, error) { return nil, nil })
		},
		"string": func() {
			HandleFunc(Tool{Name: "probe-kind", Parameters: Schema(`{"type":"object","properties":{"s":{"type":"string"}}}`)},
				func(c *Call, in string) (any, error) { return nil, nil })
		},
		"*int64": func() {
			HandleFunc(Tool{Name: "probe-kind"}, func(c *Call, in *int64) (any, error) { return nil, nil })
		},
	} {
		got := registerPanic(t, "probe-kind", reg)
		for _, want := range []string{"probe-kind", name, `"object"`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: HandleFunc did not refuse the params type naming %s: panic %q", name, want, got)
			}
		}
	}
	for name, reg := range map[string]func(){
		"map": func() {
			HandleFunc(Tool{Name: "probe-kind"}, func(c *Call, in map[string]string) (any, error) { return nil, nil })
		},
		"any": func() { HandleFunc(Tool{Name: "probe-kind"}, func(c *Call, in any) (any, error) { return nil, nil }) },
		"struct": func() {
			HandleFunc(Tool{Name: "probe-kind"}, func(c *Call, in *struct{ A int }) (any, error) { return nil, nil })
		},
	} {
		if got := registerPanic(t, "probe-kind", reg); got != "" {
			t.Errorf("%s params were refused: %s", name, got)
		}
	}
}
