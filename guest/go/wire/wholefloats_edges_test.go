package wire

import (
	"reflect"
	"testing"
)

// TestIntegerBesideEqualWholeFloatStaysInteger: DecodeTyped told the
// whole floats from 2^53 up apart from integers by their literal alone,
// so an integer in a generic value of the params type became a float64
// whenever a float elsewhere in the params had its value (the id 2^60
// beside the score 2^60.0, the uint64 2^63 beside the float 2^63), where
// a Handle handler gets the int64 and the uint64. Each number keeps its
// kind now; a float given to an integer field still reaches it exactly.
func TestIntegerBesideEqualWholeFloatStaysInteger(t *testing.T) {
	type params struct {
		A any            `json:"a"`
		B any            `json:"b"`
		C map[string]any `json:"c"`
		D []any          `json:"d"`
		N int64          `json:"n"`
	}
	in := map[string]any{
		"a": int64(1 << 60), "b": float64(1 << 60),
		"c": map[string]any{"x": uint64(1 << 63), "y": float64(1 << 63), "z": int64(-(1 << 60))},
		"d": []any{float64(-(1 << 60)), int64(1 << 60), float64(1 << 60)},
		"n": float64(1 << 60),
	}
	var got params
	if err := DecodeTyped(in, &got); err != nil {
		t.Fatal(err)
	}
	want := params{
		A: int64(1 << 60), B: float64(1 << 60),
		C: map[string]any{"x": uint64(1 << 63), "y": float64(1 << 63), "z": int64(-(1 << 60))},
		D: []any{float64(-(1 << 60)), int64(1 << 60), float64(1 << 60)},
		N: 1 << 60,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}

	// A generic params value whole.
	var m map[string]any
	if err := DecodeTyped(in, &m); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, in) {
		t.Errorf("got  %#v\nwant %#v", m, in)
	}
}
