package audit

import (
	"encoding/json"
	"math"
	"testing"
)

// TestBigWholeFloatHashesAsItsInteger: docs/audit.md says a float with an
// integer value is written as that integer in the canonical JSON of params
// and results, so that 2.0 and 2 hash the same. From 2^53 up the encoder
// wrote the float's shortest digits padded with zeros, as encoding/json
// does: the float 2^60 was "1152921504606847000", the canonical form of
// another integer the host holds exactly (int64 1152921504606847000), so
// two different params had one params_hash while the float 2^60 and the
// integer 2^60, the same number, had two. A whole float within the host's
// integers (−2^63 … 2^64−1) is now written as its exact integer.
func TestBigWholeFloatHashesAsItsInteger(t *testing.T) {
	same := []struct{ f, i any }{
		{float64(1 << 60), int64(1 << 60)},
		{-float64(1 << 60), int64(-1 << 60)},
		{float64(1<<53 + 2), int64(1<<53 + 2)},
		{float64(1 << 63), uint64(1 << 63)},
		{-float64(1 << 63), int64(math.MinInt64)},
		{math.Nextafter(1<<64, 0), uint64(math.MaxUint64 - 2047)},
		{json.Number("1.152921504606846976e18"), int64(1 << 60)},
	}
	for _, c := range same {
		a, err := CanonicalJSON(c.f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := CanonicalJSON(c.i)
		if string(a) != string(b) {
			t.Errorf("the float %v is written %s, the integer %v %s", c.f, a, c.i, b)
		}
	}
	// The float 2^60 and the integer its shortest digits spell are
	// different numbers.
	a, _ := ValueHash(map[string]any{"n": float64(1 << 60)})
	b, _ := ValueHash(map[string]any{"n": int64(1152921504606847000)})
	if a == b {
		t.Errorf("the float 2^60 and the integer 1152921504606847000 hash the same, %s", a)
	}
	// Beyond the host's integers and in fractions, as encoding/json writes.
	for f, want := range map[float64]string{1e20: "100000000000000000000", 1e21: "1e+21", 0.5: "0.5", 1e-7: "1e-7", math.Copysign(0, -1): "0"} {
		if got, _ := CanonicalJSON(f); string(got) != want {
			t.Errorf("%v is written %s, want %s", f, got, want)
		}
	}
}
