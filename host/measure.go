package host

import (
	"encoding/json"
	"math"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/jsonenc"
)

// measure walks a generic value once, without allocating, and returns an
// estimate of its JSON size (exact for strings, escapes counted, and for
// integers; 24 bytes per float) and whether it is already canonical
// (see abi.IsCanonical). Values nested deeper than abi allows are reported
// as non-canonical so Normalize refuses them with a path.
func measure(v any, _ int) (size int, canonical bool) {
	return measureDepth(v, 0)
}

const maxMeasureDepth = 512

func measureDepth(v any, depth int) (int, bool) {
	if depth > maxMeasureDepth {
		return 0, false
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
		for _, e := range x {
			s, c := measureDepth(e, depth+1)
			n += s
			ok = ok && c
		}
		return n, ok
	case map[string]any:
		n, ok := 2+len(x), true
		for k, e := range x {
			s, c := measureDepth(e, depth+1)
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

// encodedLen is the length of canonical value v as JSON: what a value
// that measure puts over a size limit is checked with before it is
// refused. measure counts 24 bytes for every float, where 0.5 takes 3, so
// params and results of short floats well within the limit were refused
// as larger than it. A value that cannot be encoded counts as over any
// limit.
func encodedLen(v any) int {
	var c byteCounter
	enc := json.NewEncoder(&c)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(abi.ForJSON(v)); err != nil {
		return math.MaxInt
	}
	return c.n - 1 // the Encoder's newline
}

// byteCounter is an io.Writer that counts what is written to it.
type byteCounter struct{ n int }

func (c *byteCounter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}
