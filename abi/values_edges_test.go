package abi

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

type probeBlob []byte
type probeCount int64
type probeID uint64
type probeRatio float32

// TestNormalizeNamedTypes: Normalize treats a named Go type as its
// kind, the way encoding/json does. A json.RawMessage (JSON text a native
// tool passes on) became an array of its bytes ([123, 34, …]); another
// named byte slice was such an array too, while []byte is refused; a named
// integer or float (time.Duration, type Count int64) was refused as "not a
// JSON value" while a named string was accepted.
func TestNormalizeNamedTypes(t *testing.T) {
	for _, c := range []struct {
		in   any
		want any
	}{
		{json.RawMessage(`{"a":1,"b":[true,null,"x"]}`), map[string]any{"a": int64(1), "b": []any{true, nil, "x"}}},
		{map[string]any{"r": json.RawMessage(`18446744073709551615`)}, map[string]any{"r": uint64(math.MaxUint64)}},
		{[]json.RawMessage{json.RawMessage(`2.5`)}, []any{2.5}},
		{probeCount(-5), int64(-5)},
		{map[string]any{"d": 1500 * time.Millisecond}, map[string]any{"d": int64(1_500_000_000)}},
		{probeID(1 << 63), uint64(1 << 63)},
		{probeID(7), int64(7)},
		{probeRatio(0.5), 0.5},
		{[]probeCount{1, 2}, []any{int64(1), int64(2)}},
	} {
		got, err := Normalize(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Normalize(%T %v) = %#v, %v; want %#v", c.in, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{map[string]any{"r": json.RawMessage(`{bad`)}, "$.r: "},
		{map[string]any{"b": probeBlob("hi")}, "$.b: raw bytes (a Go abi.probeBlob) are not a JSON value"},
		{map[string]any{"f": probeRatio(float32(math.Inf(1)))}, "$.f: +Inf is not a JSON number"},
	} {
		got, err := Normalize(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Normalize(%#v) = %#v, %v; want an error containing %q", c.in, got, err, c.want)
		}
	}
}
