package aios

import (
	"fmt"
	"strings"
	"testing"
)

// textLevel is an enum read from its name, as a flag or config value is.
type textLevel int

func (l *textLevel) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return fmt.Errorf("unknown level %q", b)
	}
	return nil
}

// TestTextUnmarshalerFieldNeedsStringSchema: a params field whose type
// has UnmarshalText (and no UnmarshalJSON) is read by encoding/json from a
// JSON string only, whatever its kind: given a number ("cannot unmarshal
// number into Go struct field P.level of type aios.textLevel") or an
// object it fails. HandleFunc's check of the Parameters schema against the
// params type judged such a field by its kind alone, so a textLevel (an
// int) under {"type": "integer"} registered and every call the schema let
// through failed as the caller's InvalidParams. HandleFunc now panics at
// registration, naming the tool, the property and the field; under
// {"type": "string"} the field still registers.
func TestTextUnmarshalerFieldNeedsStringSchema(t *testing.T) {
	type In struct {
		Level textLevel `json:"level"`
	}
	for _, typ := range []string{"integer", "number", "object"} {
		got := registerPanic(t, "probe-textlevel", func() {
			HandleFunc(Tool{Name: "probe-textlevel", Parameters: Schema(`{"type":"object","properties":{"level":{"type":"` + typ + `"}}}`)},
				func(c *Call, in In) (int, error) { return int(in.Level), nil })
		})
		for _, want := range []string{"probe-textlevel", `"level"`, "Level", "UnmarshalText", "string"} {
			if !strings.Contains(got, want) {
				t.Fatalf("schema type %s: HandleFunc did not refuse the field naming %q: panic %q", typ, want, got)
			}
		}
	}
	if got := registerPanic(t, "probe-textlevel", func() {
		HandleFunc(Tool{Name: "probe-textlevel", Parameters: Schema(`{"type":"object","properties":{"level":{"type":"string"}}}`)},
			func(c *Call, in In) (int, error) { return int(in.Level), nil })
	}); got != "" {
		t.Fatalf("a string schema for a TextUnmarshaler field was refused: %s", got)
	}
}
