package wit

import (
	"strings"
	"testing"
)

// TestTooDeepErrorIsShort: the error for a type nested beyond the bound
// wrote one "[]" per level, a path of over 400 characters
// ("$.params.x[][][]…") that did not say what the bound is. Runs of "[]"
// are written once with their count, and the message names the bound.
func TestTooDeepErrorIsShort(t *testing.T) {
	var b strings.Builder
	b.WriteString("package a:b;\ninterface i {\n type t0 = u32;\n")
	for k := 1; k < 300; k++ {
		b.WriteString(" type t" + itoa(k) + " = list<t" + itoa(k-1) + ">;\n")
	}
	b.WriteString(" record r { a: u8, deep: t299 }\n f: func(x: r);\n}\n")
	res, err := ParseSource("deep.wit", b.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = FuncJSONCompatible(res.Package("a:b").Interface("i").Func("f"))
	if err == nil {
		t.Fatal("a type nested 300 levels was accepted")
	}
	want := "function f: $.params.x.deep[]×200: type nested more than 200 levels deep"
	if err.Error() != want {
		t.Errorf("error %q (%d characters), want %q", err, len(err.Error()), want)
	}
}
