package wit

import (
	"math"
	"strings"
	"testing"
)

// TestNonFiniteResultRefused: a component's NaN or infinity has no
// JSON form. ToJSON wrote null, which a plain f64's schema refused with a
// message about null, but some(NaN) of an option<f64> became none, a
// value the component never returned, without a word. It is an error
// naming the path and the value.
func TestNonFiniteResultRefused(t *testing.T) {
	f64 := Primitive(KindF64)
	opt := &Type{Kind: KindOption, Elem: f64}
	list := &Type{Kind: KindList, Elem: Primitive(KindF32)}
	for _, c := range []struct {
		t    *Type
		v    Value
		path string
	}{
		{f64, math.NaN(), "$.x"},
		{f64, math.Inf(-1), "$.x"},
		{opt, Option{Some: true, Val: math.NaN()}, "$.x"},
		{list, []Value{float32(1), float32(math.Inf(1))}, "$.x[1]"},
	} {
		got, err := toJSON(c.t, c.v, "$.x", 0)
		if err == nil {
			t.Errorf("%s %v became %#v", typeName(c.t), c.v, got)
			continue
		}
		if !strings.Contains(err.Error(), c.path+":") || !strings.Contains(err.Error(), "no JSON form") {
			t.Errorf("%s: %v; want the path %s and the reason", typeName(c.t), err, c.path)
		}
	}
	if got, err := toJSON(opt, Option{Some: true, Val: -0.5}, "$.x", 0); err != nil || got != -0.5 {
		t.Errorf("some(-0.5): %#v, %v", got, err)
	}
}
