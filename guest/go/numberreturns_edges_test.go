package aios

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestJSONNumberResultIsANumber: a result field (or result) of type
// json.Number — encoding/json writes it as the number it holds — under a
// Returns schema typing it "number" or "integer" made HandleFunc panic at
// registration ("is written as a JSON string": json.Number is a string
// kind), so the guest failed to load; and under "string" it loaded, every
// result then refused by the host. It loads and serves a number now, a
// "string" schema is what is refused, and a `,string` json.Number is still
// a string.
func TestJSONNumberResultIsANumber(t *testing.T) {
	type Out struct {
		N json.Number `json:"n"`
	}
	numSchema := Schema(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	if got := registerPanic(t, "probe-number-out", func() {
		HandleFunc(Tool{Name: "probe-number-out", Returns: numSchema}, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
	}); got != "" {
		t.Fatalf("a json.Number field under a number schema was refused: %s", got)
	}
	if got := registerPanic(t, "probe-number-top", func() {
		HandleFunc(Tool{Name: "probe-number-top", Returns: Schema(`{"type":"integer"}`)}, func(c *Call, in map[string]any) (json.Number, error) { return "", nil })
	}); got != "" {
		t.Fatalf("a json.Number result under an integer schema was refused: %s", got)
	}
	probeTool(t, "probe-number-out", func() {
		HandleFunc(Tool{Name: "probe-number-out", Returns: numSchema}, func(c *Call, in map[string]any) (Out, error) { return Out{N: "1.5"}, nil })
	})
	if v, terr := serveResult(t, "probe-number-out", nil); terr != nil || !reflect.DeepEqual(v, map[string]any{"n": 1.5}) {
		t.Fatalf("%#v %+v, want n 1.5", v, terr)
	}
	if got := registerPanic(t, "probe-number-string", func() {
		HandleFunc(Tool{Name: "probe-number-string", Returns: Schema(`{"type":"object","properties":{"n":{"type":"string"}}}`)}, func(c *Call, in map[string]any) (Out, error) { return Out{}, nil })
	}); got == "" {
		t.Fatal("a json.Number field under a string schema was not refused")
	}
	type Quoted struct {
		N json.Number `json:"n,string"`
	}
	if got := registerPanic(t, "probe-number-quoted", func() {
		HandleFunc(Tool{Name: "probe-number-quoted", Returns: Schema(`{"type":"object","properties":{"n":{"type":"string"}}}`)}, func(c *Call, in map[string]any) (Quoted, error) { return Quoted{}, nil })
	}); got != "" {
		t.Fatalf("a ,string json.Number field under a string schema was refused: %s", got)
	}
}
