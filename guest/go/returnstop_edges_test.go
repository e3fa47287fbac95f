package aios

import (
	"strings"
	"testing"
)

// TestReturnsTopTypeCheckedAgainstResultType: the Returns schema's own
// type was not held to the result type (Parameters' is: a params type that
// cannot take an object panics), so a struct result under "type": "array"
// or a []string result under "type": "object" registered and every call
// failed with InvalidResult "at /: expected array, got object". It panics
// at registration naming the tool, the type and the result type.
func TestReturnsTopTypeCheckedAgainstResultType(t *testing.T) {
	type Out struct {
		N int `json:"n"`
	}
	got := registerPanic(t, "probe-returns-top", func() {
		HandleFunc(Tool{Name: "probe-returns-top", Returns: Schema(`{"type":"array","items":{"type":"integer"}}`)},
			func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
	})
	for _, want := range []string{"probe-returns-top", `"array"`, "aios.Out", "object"} {
		if !strings.Contains(got, want) {
			t.Errorf("struct result under type array: panic %q does not name %s", got, want)
		}
	}
	got = registerPanic(t, "probe-returns-top", func() {
		HandleFunc(Tool{Name: "probe-returns-top", Returns: Schema(`{"type":"object"}`)},
			func(c *Call, in map[string]any) ([]string, error) { return nil, nil })
	})
	if !strings.Contains(got, "probe-returns-top") || !strings.Contains(got, "[]string") {
		t.Errorf("[]string result under type object: panic %q", got)
	}
	if got := registerPanic(t, "probe-returns-top", func() {
		HandleFunc(Tool{Name: "probe-returns-top", Returns: Schema(`{"type":"array"}`)},
			func(c *Call, in map[string]any) ([]Out, error) { return nil, nil })
	}); got != "" {
		t.Fatalf("a []Out result under type array was refused: %s", got)
	}
}
