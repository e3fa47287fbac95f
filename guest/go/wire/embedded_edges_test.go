package wire

import (
	"testing"
)

type embeddedHidden struct {
	X any            `json:"x"`
	L []any          `json:"l"`
	M map[string]any `json:"m"`
}

type embeddedHiddenPtr struct {
	Z any `json:"z"`
}

// TestDecodeTypedEmbeddedUnexportedNumbersCanonical: a params struct that
// embeds an unexported struct (struct{ inner; … }) gets inner's fields set
// by encoding/json, but the numbers in its generic fields (an any, an
// []any, a map[string]any) were left as the json.Number the decoding made
// (canonNumbers skipped every unexported field, the embedded ones too), so
// a handler switching on int64/float64 saw neither, where the same field
// declared in the outer struct held int64. Embedded fields are now walked
// like any other: every number is the canonical int64, uint64 or float64.
func TestDecodeTypedEmbeddedUnexportedNumbersCanonical(t *testing.T) {
	type In struct {
		embeddedHidden
		*embeddedHiddenPtr
		Y any `json:"y"`
	}
	in := In{embeddedHiddenPtr: &embeddedHiddenPtr{}}
	params := map[string]any{
		"x": int64(5), "y": int64(6), "z": 1.5,
		"l": []any{int64(7), uint64(1 << 63)},
		"m": map[string]any{"k": 2.5},
	}
	if err := DecodeTyped(params, &in); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  any
		want any
	}{
		{"y", in.Y, int64(6)},
		{"x", in.X, int64(5)},
		{"z", in.Z, 1.5},
		{"l[0]", in.L[0], int64(7)},
		{"l[1]", in.L[1], uint64(1 << 63)},
		{"m.k", in.M["k"], 2.5},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %#v (%T), want %#v (%T)", c.name, c.got, c.got, c.want, c.want)
		}
	}
}
