package aios

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestJSONNumberFieldTakesNumbers: a params field of type json.Number —
// encoding/json's way to take a number exactly, whatever its size — for a
// property the schema types "integer" or "number" made HandleFunc panic
// at registration ("encoding/json cannot decode a JSON integer into it":
// json.Number is a string kind), so the guest failed to load, though
// encoding/json decodes any JSON number into it. It loads and serves now.
func TestJSONNumberFieldTakesNumbers(t *testing.T) {
	type In struct {
		Count json.Number `json:"count"`
		Ratio json.Number `json:"ratio"`
	}
	schema := Schema(`{"type":"object","properties":{"count":{"type":"integer"},"ratio":{"type":"number"}},"required":["count","ratio"]}`)
	if got := registerPanic(t, "probe-jsonnumber", func() {
		HandleFunc(Tool{Name: "probe-jsonnumber", Parameters: schema}, func(c *Call, in In) (In, error) { return in, nil })
	}); got != "" {
		t.Fatalf("a json.Number field for a number was refused: %s", got)
	}
	probeTool(t, "probe-jsonnumber", func() {
		HandleFunc(Tool{Name: "probe-jsonnumber", Parameters: schema}, func(c *Call, in In) (In, error) { return in, nil })
	})
	v, terr := serveResult(t, "probe-jsonnumber", map[string]any{"count": int64(9007199254740993), "ratio": 0.25})
	if want := map[string]any{"count": int64(9007199254740993), "ratio": 0.25}; terr != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("%#v %+v, want %#v", v, terr, want)
	}
	// A json.Number field still cannot take a boolean.
	if got := registerPanic(t, "probe-jsonnumber-bool", func() {
		HandleFunc(Tool{Name: "probe-jsonnumber-bool", Parameters: Schema(`{"type":"object","properties":{"count":{"type":"boolean"}}}`)},
			func(c *Call, in In) (any, error) { return nil, nil })
	}); got == "" {
		t.Fatal("a json.Number field for a boolean was not refused")
	}
}
