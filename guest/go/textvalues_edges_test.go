package aios

import (
	"math"
	"reflect"
	"testing"
)

// TestTypedValuesExact: a HandleFunc handler whose params or result
// types hold generic values (an `any` field, a map[string]any inside a
// struct) sees and returns the value the host sent, exactly, as a Handle
// handler does: an integer past 2^53 is not rounded through float64 (it
// was: 9007199254740993 became …992), and a whole float from 2^53 up
// reaches an integer field as the integer it equals, a generic value as
// that float. (A typed result's float from 2^53 up still goes by
// encoding/json's shortest form: 2^60 arrives as the integer
// 1152921504606847000; docs/abi.md says so.)
func TestTypedValuesExact(t *testing.T) {
	type in struct {
		V    any            `json:"v"`
		M    map[string]any `json:"m"`
		List []any          `json:"list"`
	}
	probeTool(t, "probe-typed-any", func() {
		HandleFunc(Tool{Name: "probe-typed-any"}, func(c *Call, p in) (map[string]any, error) {
			return map[string]any{"v": p.V, "m": p.M, "list": p.List}, nil
		})
	})
	params := map[string]any{
		"v":    int64(1<<53 + 1),
		"m":    map[string]any{"max": uint64(math.MaxUint64), "min": int64(math.MinInt64), "f": float64(1 << 62), "x": 0.5},
		"list": []any{int64(-(1<<53 + 1)), uint64(1) << 63, 1e20, "s", nil},
	}
	v, terr := serveResult(t, "probe-typed-any", params)
	if terr != nil {
		t.Fatalf("%+v", terr)
	}
	want := map[string]any{"v": params["v"], "m": params["m"], "list": params["list"]}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("the typed handler returned\n %#v\nwant\n %#v", v, want)
	}
	probeTool(t, "probe-typed-int", func() {
		HandleFunc(Tool{Name: "probe-typed-int"}, func(c *Call, p struct{ N int64 }) (map[string]any, error) {
			return map[string]any{"n": p.N}, nil
		})
	})
	v, terr = serveResult(t, "probe-typed-int", map[string]any{"n": float64(1 << 60)})
	if want := map[string]any{"n": int64(1 << 60)}; terr != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("the float 2^60 into an int64 field: %#v %+v, want %#v", v, terr, want)
	}
}
