package host

import (
	"math"
	"strconv"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/jsonenc"
)

// measure walks a generic value once, without allocating, and returns an
// estimate of its JSON size (exact for strings, escapes counted, and for
// integers; 24 bytes per float) and whether it is already canonical
// (see abi.IsCanonical). Values nested deeper than abi allows are reported
// as non-canonical so Normalize refuses them with a path.
//
// The walk ends once the size passes limit (and then says non-canonical,
// what was not walked being unknown: Normalize, bounded by limit, decides):
// a Go value sharing its members (each level holding the one below under
// two keys) has as many paths as 2 to its depth, and walking each one to
// refuse it as too large did not end (TestSharedSubvaluesResultEnds).
func measure(v any, limit int) (size int, canonical bool) {
	if limit <= 0 {
		limit = math.MaxInt
	}
	m := measurer{limit: limit}
	size, canonical = m.walk(v, 0)
	if m.cut {
		return size, false
	}
	return size, canonical
}

// measurer is measure's walk: the size passed limit (cut) ends it.
type measurer struct {
	n, limit int
	cut      bool
}

const maxMeasureDepth = 512

// tooDeep is measurer.walk's size of a value nested deeper than
// maxMeasureDepth: over any limit. The walk ends at the first such path:
// it went on along every other member, and a map held under two of its
// own keys (a Go tool's result) had 2^512 paths to walk — the call never
// ended (TestWideCycleInResultEnds).
const tooDeep = math.MaxInt32

func (m *measurer) walk(v any, depth int) (int, bool) {
	if depth > maxMeasureDepth {
		return tooDeep, false
	}
	switch x := v.(type) {
	case nil:
		return 4, true
	case bool:
		if x {
			return 4, true
		}
		return 5, true
	case string:
		// At its JSON length: a control character is six bytes there
		// (\u0001), and counted as one a string passed a limit of
		// encoded JSON at six times its size.
		if m.n += len(x); m.n > m.limit {
			// (a string shared many times over is read once each time)
			m.cut = true
			return tooDeep, false
		}
		return jsonenc.QuotedLen(x), abi.ValidUTF8(x)
	case int64:
		return intLen(x), true
	case uint64: // canonical only above the int64 range: 19 or 20 digits
		if x >= 1e19 {
			return 20, true
		}
		return 19, x > math.MaxInt64
	case float64:
		return 24, !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		n, ok := 2+len(x), true
		if m.n += 2 + len(x); m.n > m.limit {
			m.cut = true
			return tooDeep, false
		}
		for _, e := range x {
			s, c := m.walk(e, depth+1)
			if s == tooDeep {
				return tooDeep, false
			}
			n += s
			ok = ok && c
		}
		return n, ok
	case map[string]any:
		n, ok := 2+len(x), true
		if m.n += 2 + len(x); m.n > m.limit {
			m.cut = true
			return tooDeep, false
		}
		for k, e := range x {
			s, c := m.walk(e, depth+1)
			if s == tooDeep {
				return tooDeep, false
			}
			n += s + jsonenc.QuotedLen(k) + 1
			ok = ok && c && abi.ValidUTF8(k)
		}
		return n, ok
	}
	return 0, false
}

func intLen(x int64) int {
	n := 1
	if x < 0 {
		n++
		if x == math.MinInt64 {
			return 20
		}
		x = -x
	}
	for x >= 10 {
		x /= 10
		n++
	}
	return n
}

// jsonOver says whether canonical value v's JSON, as the host writes it
// (encoding/json without HTML escapes, abi.ForJSON's floats), is longer
// than limit bytes: what a value that measure puts over a size limit is
// checked with before it is refused. measure counts 24 bytes for every
// float, where 0.5 takes 3, so params and results of short floats well
// within the limit were refused as larger than it. It counts exactly and
// stops once past limit, allocating nothing: encoding a result of
// millions of entries whole (which encoding/json does before it writes a
// byte, sorting every object's keys) to learn that it is over the limit
// took seconds. A value that cannot be encoded (not canonical, nested
// deeper than abi allows) is over any limit.
func jsonOver(v any, limit int) bool {
	n := 0
	return !jsonLenWithin(v, limit, &n, 0)
}

// jsonLenWithin adds the length of v's JSON to *n and says whether *n is
// still within limit (false as soon as it is not, or v cannot be encoded).
func jsonLenWithin(v any, limit int, n *int, depth int) bool {
	if depth > abi.MaxDepth {
		return false
	}
	switch x := v.(type) {
	case nil:
		*n += 4
	case bool:
		*n += 5
		if x {
			*n--
		}
	case string:
		*n += jsonStringLen(x)
	case int64:
		*n += intLen(x)
	case uint64:
		*n += uintLen(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
		*n += floatLen(x)
	case []any:
		*n += max(1+len(x), 2)
		if *n > limit {
			return false
		}
		for _, e := range x {
			if !jsonLenWithin(e, limit, n, depth+1) {
				return false
			}
		}
	case map[string]any:
		*n += max(1+len(x), 2)
		if *n > limit {
			return false
		}
		for k, e := range x {
			*n += jsonStringLen(k) + 1
			if !jsonLenWithin(e, limit, n, depth+1) {
				return false
			}
		}
	default:
		return false
	}
	return *n <= limit
}

// jsonStringLen is the length of s (valid UTF-8) quoted by encoding/json
// without HTML escapes: a quote, a backslash, \b, \f, \n, \r and \t
// take two bytes, other control characters six (\u0001), U+2028 and
// U+2029 six (\u2028), where jsonenc.QuotedLen (the audit log's writer)
// counts \b, \f, U+2028 and U+2029 otherwise.
func jsonStringLen(s string) int {
	n := jsonenc.QuotedLen(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\b' || c == '\f':
			n -= 4 // six in QuotedLen, two here
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
			n += 3
			i += 2
		}
	}
	return n
}

// uintLen is the number of decimal digits of x.
func uintLen(x uint64) int {
	n := 1
	for ; x >= 10; x /= 10 {
		n++
	}
	return n
}

// floatLen is the length of finite f as the host writes it: a whole float
// from 2^53 to 1e21 in exponent form (abi.ForJSON), others as
// encoding/json does (exponent form below 1e-6 and from 1e21, its
// exponent without a leading zero).
func floatLen(f float64) int {
	var buf [32]byte
	a := math.Abs(f)
	if a >= 1<<53 && a < 1e21 && a == math.Trunc(a) {
		return len(strconv.AppendFloat(buf[:0], f, 'e', -1, 64))
	}
	if a != 0 && (a < 1e-6 || a >= 1e21) {
		b := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			return n - 1
		}
		return len(b)
	}
	return len(strconv.AppendFloat(buf[:0], f, 'f', -1, 64))
}
