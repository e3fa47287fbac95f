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
