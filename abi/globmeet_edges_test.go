package abi

import (
	"strconv"
	"testing"
)

// TestGlobMeetExact: the patterns globMeet gives for two patterns
// match exactly the strings both match (every pair of patterns up to 4
// characters over a, b, * and ?, every string up to 5 letters), and
// Intersect keeps them: ReadSpace(a*) ∩ ReadSpace(*b) allows ab and axb,
// not a or ba; an address pattern meets a name pattern in nothing.
func TestGlobMeetExact(t *testing.T) {
	pats := patternsUpTo("ab*?", 4)
	strs := patternsUpTo("abc", 5)
	match := make([][]bool, len(pats))
	for i, p := range pats {
		match[i] = make([]bool, len(strs))
		for j, s := range strs {
			match[i][j] = Glob(p, s)
		}
	}
	for i, p := range pats {
		for k := i; k < len(pats); k++ {
			q := pats[k]
			budget := meetBudget
			meet, ok := globMeet(p, q, &budget)
			if !ok {
				t.Fatalf("globMeet(%q, %q) over its budget", p, q)
			}
			for j, s := range strs {
				both := match[i][j] && match[k][j]
				some := false
				for _, m := range meet {
					some = some || Glob(m, s)
				}
				if both != some {
					t.Fatalf("globMeet(%q, %q) = %q: %q matches both: %v, one of these: %v", p, q, meet, s, both, some)
				}
			}
		}
	}
	g := Intersect(mustGrants(t, "ReadSpace(a*)", "CallTool(pdf-*)", "Network(10.*)"), mustGrants(t, "ReadSpace(*b)", "CallTool(*-extract)", "Network(*.example.com)"))
	for req, want := range map[string]bool{
		"ReadSpace(ab)": true, "ReadSpace(axb)": true, "ReadSpace(a)": false, "ReadSpace(ba)": false,
		"CallTool(pdf-extract)": true, "CallTool(pdf-x-extract)": true, "CallTool(pdf-merge)": false, "CallTool(doc-extract)": false,
		"Network(10.1.example.com)": false, "Network(10.0.0.1)": false,
	} {
		if got := g.Allows(MustCapability(req)); got != want {
			t.Errorf("%v allows %s = %v, want %v", g.Strings(), req, got, want)
		}
	}
	// A pair past the budget is left out: it allows nothing.
	long := "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a"
	budget := meetBudget
	if _, ok := globMeet(long, "*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b*b", &budget); ok {
		t.Fatal("globMeet of two long star patterns stayed within its budget")
	}
	// A thousand such patterns against ten: one Intersect spends at most
	// meetBudget steps on overlaps in all (half a second before), and
	// still keeps what one side covers.
	var many, ten []string
	for i := range 1000 {
		many = append(many, "ReadSpace(*a*a*a*a*a*a*a*a*a*a"+strconv.Itoa(i)+")")
	}
	for i := range 10 {
		ten = append(ten, "ReadSpace(*b*b*b*b*b*b*b*b"+strconv.Itoa(i)+")")
	}
	ten = append(ten, "ReadSpace(*)")
	g = Intersect(mustGrants(t, many...), mustGrants(t, ten...))
	for _, s := range many {
		if !g.Allows(MustCapability(s)) {
			t.Fatalf("Intersect lost %s, which ReadSpace(*) covers", s)
		}
	}
	if g.Allows(MustCapability("ReadSpace(bbbbbbbb1)")) {
		t.Fatal("Intersect allows ReadSpace(bbbbbbbb1), which no pattern of the thousand matches")
	}
}

func mustGrants(t *testing.T, list ...string) Grants {
	t.Helper()
	g, err := ParseGrants(list)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
