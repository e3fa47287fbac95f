package aios

import (
	"strings"
	"testing"
	"time"
)

// TestTimeFieldSchemaTypeChecked: a time.Time field, which encoding/json
// writes and reads as an RFC 3339 string only, under a schema typing it
// "integer" (Unix seconds, a common mistake) or "object" loaded without a
// word: time.Time has its own MarshalJSON/UnmarshalJSON, which the check
// of HandleFunc's types did not judge, so the host refused every result as
// InvalidResult, or every call that sent the number failed as the caller's
// InvalidParams ("parsing time \"1700000000\" …"). HandleFunc now panics at
// registration naming the property and the field, as for other types; a
// "string" schema still loads.
func TestTimeFieldSchemaTypeChecked(t *testing.T) {
	type Out struct {
		Created time.Time `json:"created"`
	}
	type In struct {
		Since *time.Time `json:"since"`
	}
	got := registerPanic(t, "probe-time-out", func() {
		HandleFunc(Tool{Name: "probe-time-out", Returns: Schema(`{"type":"object","properties":{"created":{"type":"integer"}}}`)},
			func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
	})
	if !strings.Contains(got, `"created"`) || !strings.Contains(got, "Created") || !strings.Contains(got, "string") {
		t.Errorf("a time.Time result field under an integer schema: %q, want a panic naming it", got)
	}
	got = registerPanic(t, "probe-time-in", func() {
		HandleFunc(Tool{Name: "probe-time-in", Parameters: Schema(`{"type":"object","properties":{"since":{"type":"integer"}}}`)},
			func(c *Call, in In) (any, error) { return nil, nil })
	})
	if !strings.Contains(got, `"since"`) || !strings.Contains(got, "Since") {
		t.Errorf("a time.Time params field under an integer schema: %q, want a panic naming it", got)
	}
	if got := registerPanic(t, "probe-time-ok", func() {
		HandleFunc(Tool{Name: "probe-time-ok",
			Parameters: Schema(`{"type":"object","properties":{"since":{"type":"string","format":"date-time"}}}`),
			Returns:    Schema(`{"type":"object","properties":{"created":{"type":"string"}},"required":["created"]}`)},
			func(c *Call, in In) (Out, error) { return Out{}, nil })
	}); got != "" {
		t.Errorf("time.Time fields under string schemas were refused: %s", got)
	}
}
