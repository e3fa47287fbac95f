package schema

import (
	"math"
	"math/big"
	"testing"
)

// TestMultipleOfDecimalAllocatesNothing: a decimal multipleOf (0.01 for
// money, 0.1, 0.5) or a float beyond 2^53 against an integer one was
// decided on the fast path by dividing big.Rats, 12 to 21 allocations a
// number, where doc.go and docs/registry.md promise none on success; it is
// decided with 64-bit arithmetic, with the reference's verdict (0.3 is a
// multiple of 0.1, read as the decimal it is written as, not the binary
// float).
func TestMultipleOfDecimalAllocatesNothing(t *testing.T) {
	for _, c := range []struct {
		m string
		v any
	}{
		{"0.1", 0.3}, {"0.01", 19.99}, {"0.01", 0.07}, {"0.5", 2.5}, {"0.5", int64(3)},
		{"0.01", int64(-3)}, {"2", 1e20}, {"0.25", -1e300}, {"1e-5", 123.45678},
	} {
		v := MustCompile("t@1.0.0 parameters", mustJSON(t, `{"type":"number","multipleOf":`+c.m+`}`))
		if !v.Fast() {
			t.Fatalf("multipleOf %s is not on the fast path", c.m)
		}
		if err := v.Validate(c.v); err != nil {
			t.Errorf("%v multipleOf %s: %v", c.v, c.m, err)
			continue
		}
		if a := testing.AllocsPerRun(100, func() { _ = v.Validate(c.v) }); a != 0 {
			t.Errorf("%v multipleOf %s: %v allocations", c.v, c.m, a)
		}
	}
}

// TestMultipleOfAgreesWithExact: the 64-bit decision gives the exact
// rational division's verdict for every kind of divisor and value.
func TestMultipleOfAgreesWithExact(t *testing.T) {
	divisors := []float64{0.1, 0.01, 0.3, 0.5, 0.25, 1e-5, 1e-17, 1e-300, 2.5, 3, 7, 1e15, 1e20, 1.7976931348623157e308, 5e-324, 0.1 + 0.2, 1.0 / 3}
	values := []float64{0, -0.0, 0.3, 0.7, 0.07, 19.99, 1, 2, 3, 7.5, -7.5, 1e20, 3e20, 1e300, -1e300, 5e-324, 1e-5, 2e-17, 1e-17, 0.30000000000000004,
		9007199254740993, 123.45678, 1e15, 2e15, 1.7976931348623157e308, 0.1, 1.0 / 3, math.MaxInt64, 4.5e15}
	ints := []int64{0, 1, -1, 3, 10, -10, 100, 7, 1000000007, math.MaxInt64, math.MinInt64, -9007199254740993}
	for _, d := range divisors {
		r := decRat(d)
		m := newMultiple(r)
		ref := &multiple{r: r}
		for _, x := range values {
			if got, want := m.ofFloat(x), ref.exact(x); got != want {
				t.Errorf("%v multipleOf %v: %v, exactly %v", x, d, got, want)
			}
		}
		for _, i := range ints {
			if got, want := m.ofInt(i), ref.exact(i); got != want {
				t.Errorf("%d multipleOf %v: %v, exactly %v", i, d, got, want)
			}
		}
	}
	// A divisor beyond 64 bits takes the exact division.
	huge, _ := new(big.Rat).SetString("1/100000000000000000000000")
	m := newMultiple(huge)
	if !m.ofFloat(0.3) || m.ofFloat(1e-30) {
		t.Errorf("multipleOf 1e-23: 0.3 %v, 1e-30 %v", m.ofFloat(0.3), m.ofFloat(1e-30))
	}
}
