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
