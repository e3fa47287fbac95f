package abi

import (
	"math"
	"reflect"
	"testing"
)

// TestUint64Canonical: an integer above the int64 range travels exactly as
// a uint64 through both codecs; one within int64 is always an int64, so
// every integer has one canonical form.
func TestUint64Canonical(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{uint64(1) << 63, true}, {uint64(math.MaxUint64), true},
		{uint64(5), false}, {uint64(math.MaxInt64), false},
		{map[string]any{"id": uint64(math.MaxUint64)}, true},
		{[]any{uint64(7)}, false},
	} {
		if got := IsCanonical(c.v); got != c.want {
			t.Errorf("IsCanonical(%#v) = %v, want %v", c.v, got, c.want)
		}
		n, err := Normalize(c.v)
		if err != nil {
			t.Fatalf("Normalize(%#v): %v", c.v, err)
		}
		if !IsCanonical(n) {
			t.Errorf("Normalize(%#v) = %#v is not canonical", c.v, n)
		}
	}
	params := map[string]any{"big": uint64(math.MaxUint64), "edge": uint64(1) << 63, "max": int64(math.MaxInt64), "min": int64(math.MinInt64)}
	for _, codec := range []Codec{MsgPack, JSON} {
		in := &ToolCall{ID: "c1", Tool: "t", Params: params}
		b, err := codec.Marshal(in)
		if err != nil {
			t.Fatalf("%s: %v", codec.Name(), err)
		}
		var out ToolCall
		if err := codec.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", codec.Name(), err)
		}
		if !reflect.DeepEqual(out.Params, params) {
			t.Errorf("%s: params %#v, want %#v", codec.Name(), out.Params, params)
		}
	}
	var v any
	if err := UnmarshalJSONValue([]byte(`[18446744073709551615, 9223372036854775807, 18446744073709551616, -9223372036854775809]`), &v); err != nil {
		t.Fatal(err)
	}
	want := []any{uint64(math.MaxUint64), int64(math.MaxInt64), float64(1 << 64), float64(-1 << 63)}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("UnmarshalJSONValue: %#v, want %#v", v, want)
	}
}
