package abi

import "testing"

// patternsUpTo returns every string over alphabet up to length n.
func patternsUpTo(alphabet string, n int) []string {
	out := []string{""}
	level := []string{""}
	for range n {
		var next []string
		for _, s := range level {
			for _, c := range alphabet {
				next = append(next, s+string(c))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// TestPatternWithinSound: Covers of a pattern by a pattern
// (patternWithin) answers true only when every string the one matches
// the other matches (checked on every string up to 6 letters, for every
// pair of patterns up to 4 characters), and sees the inclusions grants
// are written with (a* within *, ab* within a*, a?c within a*, *.b within
// *).
func TestPatternWithinSound(t *testing.T) {
	pats := patternsUpTo("ab*?", 4)
	strs := patternsUpTo("abc", 6)
	match := make([][]bool, len(pats))
	for i, p := range pats {
		match[i] = make([]bool, len(strs))
		for j, s := range strs {
			match[i][j] = Glob(p, s)
		}
	}
	for i, p := range pats {
		for k, q := range pats {
			if !patternWithin(p, q) {
				continue
			}
			for j, s := range strs {
				if match[i][j] && !match[k][j] {
					t.Fatalf("patternWithin(%q, %q) but %q matches the one, not the other", p, q, s)
				}
			}
		}
	}
	for _, c := range [][2]string{{"a*", "*"}, {"ab*", "a*"}, {"a?c", "a*"}, {"a?c", "a?*"}, {"*.b", "*"}, {"pdf-?x", "pdf-*"}, {"a*b*c", "a*c"}, {"*ab*", "*a*"}} {
		if !patternWithin(c[0], c[1]) {
			t.Errorf("patternWithin(%q, %q) = false", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"*", "a*"}, {"a*", "ab*"}, {"a*", "*b"}, {"a?", "ab"}, {"a*", "a?"}} {
		if patternWithin(c[0], c[1]) {
			t.Errorf("patternWithin(%q, %q) = true", c[0], c[1])
		}
	}
	// Network: an address pattern covers address patterns only.
	for _, c := range []struct {
		grant, req string
		want       bool
	}{
		{"Network(10.*)", "Network(10.0.0.*)", true},
		{"Network(10.*)", "Network(10.*.example.com)", false},
		{"Network(*.example.com)", "Network(api-?.example.com)", true},
		{"Network(*.example.com)", "Network(*.com)", false},
	} {
		if got := MustCapability(c.grant).Covers(MustCapability(c.req)); got != c.want {
			t.Errorf("%s covers %s = %v, want %v", c.grant, c.req, got, c.want)
		}
	}
}
