package abi_test

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestGoIntegerPast64BitsRefused: a Go integer past the host's int64 and
// uint64 ranges (a *big.Int, alone or in a struct) in a native tool's
// value is refused naming its path, as a JS BigInt or a Python int past
// them is; encoding/json wrote it as an integer literal that was read
// back as the nearest float, 2^70 arriving as 1.1805916207174113e+21
// without a word. One within the ranges stays an exact integer, and
// JSON text (a json.Number, a json.RawMessage) is read as JSON is.
func TestGoIntegerPast64BitsRefused(t *testing.T) {
	type item struct {
		N *big.Int `json:"n"`
	}
	big70 := new(big.Int).Lsh(big.NewInt(1), 70)
	neg := new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1))
	for _, c := range []struct {
		v    any
		path string
	}{
		{big70, "$.v"},
		{neg, "$.v"},
		{item{big70}, "$.v.n"},
		{[]any{map[string]any{"x": []item{{big.NewInt(1)}, {big70}}}}, "$.v[0].x[1].n"},
	} {
		_, err := abi.Normalize(map[string]any{"v": c.v})
		if err == nil || !strings.Contains(err.Error(), c.path+": ") || !strings.Contains(err.Error(), "int64 and uint64") {
			t.Errorf("%#v: %v; want an error naming %s and the ranges", c.v, err, c.path)
		}
	}
	umax := new(big.Int).SetUint64(math.MaxUint64)
	got, err := abi.Normalize(map[string]any{"a": umax, "b": item{big.NewInt(math.MinInt64)}, "c": json.Number("1180591620717411303424"),
		"d": json.RawMessage(`[1180591620717411303424]`)})
	want := map[string]any{"a": uint64(math.MaxUint64), "b": map[string]any{"n": int64(math.MinInt64)}, "c": 1.1805916207174113e+21,
		"d": []any{1.1805916207174113e+21}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, %v; want %#v", got, err, want)
	}
}
