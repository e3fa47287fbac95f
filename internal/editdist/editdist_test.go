package editdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"javscript", "javascript", 3, 1},
		{"kitten", "sitting", 5, 3},
		{"", "abc", 5, 3},
		{"same", "same", 0, 0},
		{"abcdef", "uvwxyz", 2, 3}, // past the limit: limit+1
	} {
		if got := Levenshtein(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("Levenshtein(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

func TestClosestLimitSameSpelling(t *testing.T) {
	names := []string{"analyze-complexity", "image-resize", "Echo"}
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"analyze-complexty", 2, "analyze-complexity"},
		{"ECHO", 0, "Echo"}, // case does not count
		{"imag-resise", 2, "image-resize"},
		{"imag-resise", 1, ""},
		{"nothing-near", 2, ""},
	} {
		if got := Closest(tc.name, names, tc.limit); got != tc.want {
			t.Errorf("Closest(%q, %d) = %q, want %q", tc.name, tc.limit, got, tc.want)
		}
	}
	if Limit("abcd") != 1 || Limit("abcde") != 2 {
		t.Errorf("Limit: %d %d, want 1 2", Limit("abcd"), Limit("abcde"))
	}
	if !SameSpelling("objectId", "object_id") || !SameSpelling("object-id", "OBJECT_ID") || SameSpelling("objectid", "object_ids") {
		t.Error("SameSpelling")
	}
}

// TestNear: the one "did you mean" of the registry's tool names and the
// server's adapter ids (each had its own copy, which differed: the
// server's did not suggest an id containing the one given).
func TestNear(t *testing.T) {
	cands := []string{"image-resize", "Image-Tools", "pdf-tools", "image-resize", "resize", "zzz"}
	for _, tc := range []struct {
		name string
		n    int
		want []string
	}{
		{"image-resise", 3, []string{"image-resize"}},         // one edit, listed once
		{"IMAGE", 3, []string{"Image-Tools", "image-resize"}}, // containing it, case-insensitively, nearest in length first
		{"resize", 2, []string{"resize", "image-resize"}},     // itself, then one containing it
		{"pdf-toolz", 3, []string{"pdf-tools"}},               // one edit
		{"image-tools", 1, []string{"Image-Tools"}},           // n bounds the list
		{"nothing-near", 3, []string{}},                       // none
		{"", 3, nil},                                          // no name
		{string(make([]byte, 256)), 3, nil},                   // too long to compare
	} {
		var got []string
		got = Near(tc.name, func(yield func(string) bool) {
			for _, c := range cands {
				if !yield(c) {
					return
				}
			}
		}, tc.n)
		if len(got) != len(tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("Near(%.20q, %d) = %q; want %q", tc.name, tc.n, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Near(%.20q, %d) = %q; want %q", tc.name, tc.n, got, tc.want)
				break
			}
		}
	}
}

func TestTransposed(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"chaneg", "change", true},
		{"ab", "ba", true},
		{"abc", "abc", false},
		{"acb", "abcd", false},
		{"abdc", "abce", false},
		{"bac", "abd", false},
		{"", "", false},
		{"a", "a", false},
	} {
		if got := Transposed(c.a, c.b); got != c.want {
			t.Errorf("Transposed(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
