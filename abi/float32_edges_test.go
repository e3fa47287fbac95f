package abi

import (
	"reflect"
	"testing"
)

type namedFloat32 float32

// TestNormalizeFloat32AsEncodingJSON: a native tool's float32 (a score,
// an embedding) became float64(x), 0.10000000149011612 for 0.1, when it
// stood alone or in a map[string]any, a []any or a []float32, while the
// same float32 in a struct field went through encoding/json and came out
// 0.1 (as a Go guest's HandleFunc result does): one number, two results,
// by the container. Every float32 is now the number encoding/json writes
// for it, the shortest decimal that reads back as that float32.
func TestNormalizeFloat32AsEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		in   any
		want any
	}{
		{"alone", float32(0.1), 0.1},
		{"named", namedFloat32(0.1), 0.1},
		{"in a map", map[string]any{"f": float32(0.1)}, map[string]any{"f": 0.1}},
		{"in a slice", []float32{0.1, 1e-7, 3}, []any{0.1, 1e-7, 3.0}},
		{"in a struct", struct {
			F float32 `json:"f"`
		}{0.1}, map[string]any{"f": 0.1}},
	} {
		got, err := Normalize(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Normalize(%#v) = %#v, %v; want %#v", c.name, c.in, got, err, c.want)
		}
	}
}
