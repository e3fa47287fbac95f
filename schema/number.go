package schema

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// Numbers
//
// The reference compares numbers exactly, as rationals read from their
// shortest decimal form (fmt.Sprint): a float64 v means dec(v), not its
// binary value. The fast path reproduces that without allocating:
//
//   - int64 values are compared with floor/ceil of the bound, exactly;
//   - a float64 v is compared with f, the float64 nearest the bound R:
//     v < f implies dec(v) < R and v > f implies dec(v) > R (rounding
//     intervals of distinct floats do not overlap), and for v == f the sign
//     of dec(f) - R is computed once at compile time.

type intClass int8

const (
	boundInt   intClass = iota // R is an integer within int64; ri == R
	boundFrac                  // R is not an integer; ri == floor(R), within int64
	boundAbove                 // R > every int64
	boundBelow                 // R < every int64
)

type bound struct {
	text   string
	class  intClass
	ri     int64
	f      float64
	eqSign int
}

func newBound(r *big.Rat) *bound {
	b := &bound{text: ratText(r)}
	switch {
	case r.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0:
		b.class = boundAbove
	case r.Cmp(new(big.Rat).SetInt64(math.MinInt64)) < 0:
		b.class = boundBelow
	case r.IsInt():
		b.class, b.ri = boundInt, r.Num().Int64()
	default:
		// floor: Euclidean division by the positive denominator.
		q := new(big.Int).Div(r.Num(), r.Denom())
		b.class, b.ri = boundFrac, q.Int64()
	}
	b.f, _ = r.Float64()
	b.eqSign = decRat(b.f).Cmp(r)
	return b
}

// cmpInt returns the sign of i - R.
func (b *bound) cmpInt(i int64) int {
	switch b.class {
	case boundInt:
		switch {
		case i < b.ri:
			return -1
		case i > b.ri:
			return 1
		}
		return 0
	case boundFrac:
		if i <= b.ri {
			return -1
		}
		return 1
	case boundAbove:
		return -1
	}
	return 1
}

// cmpFloat returns the sign of dec(v) - R.
func (b *bound) cmpFloat(v float64) int {
	switch {
	case v < b.f:
		return -1
	case v > b.f:
		return 1
	}
	return b.eqSign
}

// decRat is the reference's reading of a number: its fmt.Sprint form.
func decRat(v any) *big.Rat {
	r, ok := new(big.Rat).SetString(fmt.Sprint(v))
	if !ok {
		return new(big.Rat)
	}
	return r
}

// ratText writes a number of a message: an integer within 64 bits
// exactly (the host's int64 and uint64), anything else as its nearest
// float64 (1e+308, not 309 digits).
func ratText(r *big.Rat) string {
	if r.IsInt() && r.Num().BitLen() <= 64 {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}

// multiple implements multipleOf: value / m is an integer.
//
// With m = p/q in lowest terms, p and q within uint64 (0.01 is 1/100, 2.5
// is 5/2), it is decided without allocating: an integer i is a multiple
// when p divides i (q and p share no factor), and a float v, read as the
// reference reads it, D×10^E from its shortest decimal form, when p×10^-E
// divides D×q (E < 0) or p divides D×q×10^E (E >= 0). Any other m, or a
// product beyond 64 bits, takes the exact rational division.
type multiple struct {
	r    *big.Rat
	text string
	p, q uint64 // m == p/q; p is 0 when m does not fit
}

func newMultiple(r *big.Rat) *multiple {
	m := &multiple{r: r, text: ratText(r)}
	if r.Sign() > 0 && r.Num().IsUint64() && r.Denom().IsUint64() {
		m.p, m.q = r.Num().Uint64(), r.Denom().Uint64()
	}
	return m
}

func (m *multiple) ofInt(i int64) bool {
	if m.p > 0 {
		u := uint64(i)
		if i < 0 {
			u = -u
		}
		return u%m.p == 0
	}
	return m.exact(i)
}

func (m *multiple) ofFloat(v float64) bool {
	if m.p > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		if ok, decided := m.ofDecimal(v); decided {
			return ok
		}
	}
	return m.exact(v)
}

// ofDecimal decides ofFloat without allocating, when the numbers fit.
func (m *multiple) ofDecimal(v float64) (ok, decided bool) {
	var buf [32]byte
	// d.ddddde±XX, the shortest form that reads back as v (fmt.Sprint's
	// digits).
	b := strconv.AppendFloat(buf[:0], math.Abs(v), 'e', -1, 64)
	var d uint64
	frac, seenPoint := 0, false
	i := 0
	for ; i < len(b) && b[i] != 'e'; i++ {
		if b[i] == '.' {
			seenPoint = true
			continue
		}
		d = d*10 + uint64(b[i]-'0')
		if seenPoint {
			frac++
		}
	}
	if d == 0 {
		return true, true
	}
	x, neg := 0, i+1 < len(b) && b[i+1] == '-'
	for _, c := range b[i+2:] { // after "e+" or "e-"
		x = x*10 + int(c-'0')
	}
	if neg {
		x = -x
	}
	e := x - frac
	hi, lo := bits.Mul64(d, m.q)
	if e >= 0 {
		// p | d×q×10^e
		r := bits.Rem64(hi, lo, m.p)
		for ; e > 0 && r != 0; e-- {
			h, l := bits.Mul64(r, 10)
			r = bits.Rem64(h, l, m.p)
		}
		return r == 0, true
	}
	// p×10^-e | d×q
	div := m.p
	for ; e < 0; e++ {
		h, l := bits.Mul64(div, 10)
		if h != 0 {
			return false, false
		}
		div = l
	}
	return bits.Rem64(hi, lo, div) == 0, true
}

func (m *multiple) exact(v any) bool {
	return new(big.Rat).Quo(decRat(v), m.r).IsInt()
}

// equal is JSON equality of canonical values as the reference defines it
// (numbers compared as rationals). ok is false when a non-canonical value
// is met.
func equal(a, b any) (eq, ok bool) {
	switch x := a.(type) {
	case nil:
		if _, c := typeOf(b); !c {
			return false, false
		}
		return b == nil, true
	case bool:
		if _, c := typeOf(b); !c {
			return false, false
		}
		y, isB := b.(bool)
		return isB && x == y, true
	case string:
		if _, c := typeOf(b); !c {
			return false, false
		}
		y, isS := b.(string)
		return isS && x == y, true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y, true
		case float64:
			return intEqFloat(x, y)
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false, false
		}
		switch y := b.(type) {
		case int64:
			return intEqFloat(y, x)
		case float64:
			if math.IsNaN(y) || math.IsInf(y, 0) {
				return false, false
			}
			return x == y, true
		}
	case []any:
		y, isA := b.([]any)
		if !isA {
			_, c := typeOf(b)
			return false, c
		}
		if len(x) != len(y) {
			return false, true
		}
		for i := range x {
			if eq, ok := equal(x[i], y[i]); !eq || !ok {
				return eq, ok
			}
		}
		return true, true
	case map[string]any:
		y, isM := b.(map[string]any)
		if !isM {
			_, c := typeOf(b)
			return false, c
		}
		if len(x) != len(y) {
			return false, true
		}
		for k, xv := range x {
			yv, found := y[k]
			if !found {
				return false, true
			}
			if eq, ok := equal(xv, yv); !eq || !ok {
				return eq, ok
			}
		}
		return true, true
	default:
		return false, false
	}
	// a is a number, b is not an int64/float64.
	_, c := typeOf(b)
	return false, c
}

func intEqFloat(i int64, f float64) (eq, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false, false
	}
	if math.Trunc(f) != f {
		return false, true
	}
	if math.Abs(f) <= 1<<53 {
		return int64(f) == i, true
	}
	return decRat(f).Cmp(new(big.Rat).SetInt64(i)) == 0, true
}
