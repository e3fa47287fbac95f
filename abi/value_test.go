package abi

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	type S struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
	}
	x := 7
	cases := []struct {
		in   any
		want any
	}{
		{nil, nil},
		{3, int64(3)},
		{uint8(3), int64(3)},
		{uint64(math.MaxUint64), uint64(math.MaxUint64)}, // exact above the int64 range
		{uint64(math.MaxInt64), int64(math.MaxInt64)},    // one form per integer: int64 where it fits
		{uint(1) << 63, uint64(1) << 63},
		{json.Number("18446744073709551615"), uint64(math.MaxUint64)},
		{json.Number("9223372036854775808"), uint64(1) << 63},
		{json.Number("18446744073709551616"), float64(1 << 64)}, // past uint64: float64
		{json.Number("-9223372036854775809"), float64(-1 << 63)},
		{float32(1.5), 1.5},
		{json.Number("12"), int64(12)},
		{json.Number("1.25"), 1.25},
		{map[string]string{"k": "v"}, map[string]any{"k": "v"}},
		{[]string{"a"}, []any{"a"}},
		{[]int{1, 2}, []any{int64(1), int64(2)}},
		{S{A: 1}, map[string]any{"a": int64(1)}},
		{&x, int64(7)},
		{map[string]any{"n": []any{uint16(2)}}, map[string]any{"n": []any{int64(2)}}},
	}
	for _, c := range cases {
		got, err := Normalize(c.in)
		if err != nil {
			t.Errorf("Normalize(%#v): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Normalize(%#v) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestNormalizeRejects(t *testing.T) {
	cases := []struct {
		in   any
		frag string
	}{
		{math.NaN(), "$"},
		{map[string]any{"a": []any{math.Inf(1)}}, "$.a[0]"},
		{map[bool]string{true: "x"}, "map key"}, // map[int]string is an object, as encoding/json writes it (TestNormalizeHonoursMarshalers)
		{func() {}, "not a JSON value"},
		{[]byte("x"), "raw bytes"},
		{map[string]any{"s": []any{"ok", "a\xffb"}}, `$.s[1]: a string that is not valid UTF-8 (byte 0xff at offset 1`},
		{map[string]any{"k\xc3": 1}, `$: a member name that is not valid UTF-8 (byte 0xc3 at offset 1`},
		{map[string]string{"k": "\xed\xa0\x80"}, `$.k: a string that is not valid UTF-8 (byte 0xed at offset 0`}, // a surrogate
		{make(chan int), "not a JSON value"},
	}
	for _, c := range cases {
		_, err := Normalize(c.in)
		if err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("Normalize(%T) error = %v, want it to mention %q", c.in, err, c.frag)
		}
	}
	for _, v := range []any{"a\xff", map[string]any{"a\xff": 1}, []any{map[string]any{"x": "\xc0\x80"}}} {
		if IsCanonical(v) {
			t.Errorf("IsCanonical(%q) = true, want false: not valid UTF-8", v)
		}
	}
	if !IsCanonical(map[string]any{"é": "中🙂\uFFFD"}) {
		t.Error("IsCanonical refused valid UTF-8")
	}
	deep := any(nil)
	for i := 0; i < 600; i++ {
		deep = []any{deep}
	}
	if _, err := Normalize(deep); err == nil {
		t.Error("600-deep value accepted")
	}
}

func TestUnmarshalJSONValueKeepsInt64(t *testing.T) {
	var v any
	if err := UnmarshalJSONValue([]byte(`{"n":9007199254740993,"f":0.5}`), &v); err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["n"] != int64(9007199254740993) || m["f"] != 0.5 {
		t.Fatalf("got %#v", m)
	}
}
