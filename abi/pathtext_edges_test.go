package abi

import (
	"strings"
	"testing"
)

// TestDeepPathNamedShort: a value nested past MaxDepth was named by its
// whole path, 513 steps (3 KB of "[0]" or ".properties.a" in an error a
// caller or a log line shows); a path of more than maxPathSteps steps is
// named by its first and last steps around the count left out, and a
// shorter one whole.
func TestDeepPathNamedShort(t *testing.T) {
	nest := func(n int) any {
		var v any = "x"
		for range n {
			v = []any{v}
		}
		return v
	}
	_, err := Normalize(nest(MaxDepth + 10))
	if err == nil {
		t.Fatal("a value nested past MaxDepth normalized")
	}
	msg := err.Error()
	want := "$" + strings.Repeat("[0]", pathEnds) + "…(" // then the count
	if len(msg) > 300 || !strings.HasPrefix(msg, want) || !strings.Contains(msg, " levels)…"+strings.Repeat("[0]", pathEnds)+": value nested deeper than 512 levels") {
		t.Fatalf("error for a value nested %d levels (%d bytes): %s", MaxDepth+10, len(msg), msg)
	}
	// A path of maxPathSteps steps is whole.
	p := &valuePath{}
	for i := range maxPathSteps {
		p = &valuePath{up: p, idx: i}
	}
	if s := p.String(); strings.Contains(s, "…") || strings.Count(s, "[") != maxPathSteps {
		t.Fatalf("a path of %d steps: %s", maxPathSteps, s)
	}
	p = &valuePath{up: p, key: "k", member: true}
	if s := p.String(); !strings.HasPrefix(s, "$[0][1]") || !strings.HasSuffix(s, "[63].k") || !strings.Contains(s, "…(33 levels)…") {
		t.Fatalf("a path of %d steps: %s", maxPathSteps+1, s)
	}
}
