package aios

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// TestGoIntegerPast64BitsRefused: a Go integer past int64 and uint64 (a
// *big.Int, alone or in a struct) in c.CallTool's params or a result is
// refused naming it, as the host refuses a native tool's and the JS and
// Python SDKs theirs; encoding/json wrote its digits, which were read as
// the nearest float, 2^70 sent as 1.1805916207174113e+21 without a word.
// One within the ranges stays an exact integer.
func TestGoIntegerPast64BitsRefused(t *testing.T) {
	type item struct {
		N *big.Int `json:"n"`
	}
	big70 := new(big.Int).Lsh(big.NewInt(1), 70)
	for _, v := range []any{big70, item{big70}, []item{{big.NewInt(1)}, {big70}}} {
		_, err := callToolRequest("peer", "", map[string]any{"value": v})
		if err == nil || !strings.Contains(err.Error(), "1180591620717411303424") || !strings.Contains(err.Error(), "int64 and uint64") {
			t.Errorf("params %#v: %v; want an error naming the integer and the ranges", v, err)
		}
		_, err = jsonValue(map[string]any{"value": v}, 0)
		if err == nil || !strings.Contains(err.Error(), "int64 and uint64") {
			t.Errorf("result %#v: %v; want an error naming the ranges", v, err)
		}
	}
	got, err := jsonValue(map[string]any{"a": new(big.Int).SetUint64(math.MaxUint64), "b": item{big.NewInt(math.MinInt64)}}, 0)
	m, _ := got.(map[string]any)
	b, _ := m["b"].(map[string]any)
	if err != nil || m["a"] != uint64(math.MaxUint64) || b["n"] != int64(math.MinInt64) {
		t.Errorf("got %#v, %v; want the exact integers", got, err)
	}
}
