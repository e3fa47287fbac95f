// Package editdist measures how far apart two short names are, for "did you
// mean" suggestions (the registry's tool names, the config's runtimes).
package editdist

import (
	"iter"
	"slices"
	"strings"
)

// Levenshtein is the edit distance of a and b (bytes), or limit+1 as soon
// as every alignment costs more than limit.
func Levenshtein(a, b string, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to name within limit edits,
// compared case-insensitively (the earlier candidate on a tie), or "".
func Closest(name string, candidates []string, limit int) string {
	lname := strings.ToLower(name)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := Levenshtein(lname, strings.ToLower(c), limit); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Limit is how many edits a "did you mean" allows for a misspelling of
// name: two, and one for a name of four bytes or less, where two reach too
// many others.
func Limit(name string) int {
	if len(name) <= 4 {
		return 1
	}
	return 2
}

// Transposed reports whether a is b with two adjacent bytes swapped
// ("chaneg" for "change"), which Levenshtein counts as two edits.
func Transposed(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// SameSpelling reports whether a and b differ only in case and in '_' and
// '-' (objectId, object-id and object_id).
func SameSpelling(a, b string) bool {
	return squash(a) == squash(b)
}

var squasher = strings.NewReplacer("_", "", "-", "")

func squash(s string) string { return strings.ToLower(squasher.Replace(s)) }

// Near returns up to n of candidates close to name, nearest first (then
// in byte order), each once: within max(2, len(name)/4) edits, or
// containing name or contained in it (ranked by their difference in
// length), compared case-insensitively. A name that is empty or longer
// than 255 bytes has none.
func Near(name string, candidates iter.Seq[string], n int) []string {
	if name == "" || len(name) > 255 || n <= 0 {
		return nil
	}
	lname := strings.ToLower(name)
	limit := max(2, len(name)/4)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for c := range candidates {
		lc := strings.ToLower(c)
		switch {
		case strings.Contains(lc, lname) || strings.Contains(lname, lc):
			cs = append(cs, cand{c, abs(len(c) - len(name))})
		case abs(len(c)-len(name)) <= limit:
			if d := Levenshtein(lname, lc, limit); d <= limit {
				cs = append(cs, cand{c, d})
			}
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	cs = slices.CompactFunc(cs, func(a, b cand) bool { return a.name == b.name })
	out := make([]string, 0, min(n, len(cs)))
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
