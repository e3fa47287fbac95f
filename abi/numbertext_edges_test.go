package abi

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestJSONNumberNotJSONRefused: a json.Number in a value (a native tool's
// result built with json.Number(fmt.Sprint(x))) was read with
// strconv.ParseFloat, which takes more than JSON's numbers: "NaN" became
// a NaN in the host's value, against docs/abi.md's NaN refused, and
// "1_0", "+1", ".5" and "0x1p4" numbers encoding/json itself refuses to
// write. They are refused naming the path; JSON's numbers are read as
// before.
func TestJSONNumberNotJSONRefused(t *testing.T) {
	for _, s := range []string{"NaN", "nan", "1_0", "+1.5", ".5", "0x1p4", "1.", "Inf"} {
		_, err := Normalize(map[string]any{"n": []any{json.Number(s)}})
		if err == nil || !strings.Contains(err.Error(), "$.n[0]: ") || !strings.Contains(err.Error(), "is not a JSON number") {
			t.Errorf("json.Number(%q): got %v, want an error naming $.n[0] saying it is not a JSON number", s, err)
		}
		if v, err := Normalize(map[string]any{"n": json.Number(s)}); err == nil {
			t.Errorf("json.Number(%q) in a map: got %#v, want an error", s, v)
		}
	}
	v, err := Normalize([]any{json.Number("1.5"), json.Number("-0"), json.Number("1e300"), json.Number("-2.5E-3"), json.Number("18446744073709551615")})
	if want := []any{1.5, int64(0), 1e300, -2.5e-3, uint64(math.MaxUint64)}; err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("JSON numbers: %#v %v, want %#v", v, err, want)
	}
}
