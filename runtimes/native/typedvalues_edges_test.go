package native

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTypedParamsExact: Typed decodes params into the handler's type
// keeping numbers exact, as the Go guest SDK's HandleFunc does: a generic
// value inside the type (an any field, a map[string]any) holds the
// canonical int64/uint64/float64 a map[string]any handler gets, and a
// whole float from 2^53 up reaches an integer field as the integer it
// equals. encoding/json alone made every number in an any a float64
// (9007199254740993 became …992) and wrote 2^60 as 1152921504606847000.
func TestTypedParamsExact(t *testing.T) {
	type in struct {
		Meta  map[string]any `json:"meta"`
		Any   any            `json:"any"`
		List  []any          `json:"list"`
		Whole int64          `json:"whole"`
	}
	var got in
	h := Typed(func(_ context.Context, p in, _ abi.Env) (any, error) { got = p; return nil, nil })
	meta := map[string]any{"n": int64(1<<53 + 1), "u": uint64(math.MaxUint64), "m": int64(math.MinInt64), "f": 0.5, "w": float64(1 << 60)}
	params := map[string]any{"meta": meta, "any": int64(1<<53 + 1), "list": []any{uint64(math.MaxUint64), 1.5}, "whole": float64(1 << 60)}
	want := in{Meta: map[string]any{"n": int64(1<<53 + 1), "u": uint64(math.MaxUint64), "m": int64(math.MinInt64), "f": 0.5, "w": float64(1 << 60)},
		Any: int64(1<<53 + 1), List: []any{uint64(math.MaxUint64), 1.5}, Whole: 1 << 60}
	if _, err := h(context.Background(), params, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}
