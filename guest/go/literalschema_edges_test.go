package aios

import (
	"strings"
	"testing"
)

// TestGoLiteralSchemaChecked: a schema written as a Go literal with a
// []string for "required" (map[string]any{"type": "object", "required":
// []string{"user_id"}}, the natural way to write one in Go) was kept as
// it was, its "required" a []string, which HandleFunc's checks read as no
// required list at all: a params struct without a field for user_id
// registered, and encoding/json dropped the value of every call. Such a
// schema is now made canonical before it is checked, as one with a typed
// map already was, and the same struct panics at registration.
func TestGoLiteralSchemaChecked(t *testing.T) {
	type In struct {
		UserID string `json:"userId"`
	}
	got := registerPanic(t, "probe-literal", func() {
		HandleFunc(Tool{Name: "probe-literal", Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"user_id": map[string]any{"type": "string"}},
			"required":   []string{"user_id"},
		}}, func(c *Call, in In) (any, error) { return in.UserID, nil })
	})
	for _, want := range []string{"probe-literal", `requires "user_id"`, "userId"} {
		if !strings.Contains(got, want) {
			t.Fatalf("HandleFunc did not refuse the params type naming %q: panic %q", want, got)
		}
	}
	type Out struct {
		Total int `json:"Total"`
	}
	got = registerPanic(t, "probe-literal", func() {
		HandleFunc(Tool{Name: "probe-literal", Returns: map[string]any{"type": "object", "required": []string{"total"}}},
			func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
	})
	if !strings.Contains(got, `requires "total"`) {
		t.Fatalf("HandleFunc did not refuse the result type: panic %q", got)
	}
}
