package abi

import (
	"math"
	"unicode/utf8"
)

// IsCanonical reports whether v is already in canonical form (see
// Normalize) without allocating, so hot paths can skip Normalize:
//
//	if !abi.IsCanonical(v) { v, err = abi.Normalize(v) }
//
// It answers false for anything Normalize would change or refuse, including
// NaN, infinities and values nested deeper than Normalize allows.
func IsCanonical(v any) bool { return isCanonical(v, 0) }

func isCanonical(v any, depth int) bool {
	if depth > MaxDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int64:
		return true
	case string:
		return ValidUTF8(x)
	case uint64:
		return x > math.MaxInt64
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !isCanonical(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for k, e := range x {
			if !ValidUTF8(k) || !isCanonical(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// ValidUTF8 is utf8.ValidString with a byte loop in front: the strings of
// params and results are mostly short and ASCII (member names, ids), for
// which the loop costs a few nanoseconds less than the call. Canonical
// strings and member names must pass it (Normalize, IsCanonical, the
// host's value walk).
func ValidUTF8(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s[i:])
		}
	}
	return true
}
