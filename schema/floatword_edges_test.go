package schema

import (
	"math"
	"testing"
)

// TestFloatInBoundMessageWordedAsReference: a float that fails a numeric
// bound on the fast path is written as the reference writes it, and as
// the bound is: the fast path printed it with %v, so 9.3e18 against an
// exclusiveMaximum of 9.3e18 said "must be < 9300000000000000000, got
// 9.3e+18" (one number written two ways in one message) and -0.0 "got
// -0", where the same schema behind a $ref said "got 9300000000000000000"
// and "got 0".
func TestFloatInBoundMessageWordedAsReference(t *testing.T) {
	for _, c := range []struct {
		schema string
		value  float64
		want   string
	}{
		{`{"type":"number","exclusiveMaximum":9.3e18}`, 9.3e18, "at /: must be < 9300000000000000000, got 9300000000000000000"},
		{`{"type":"number","minimum":0.1}`, math.Copysign(0, -1), "at /: must be >= 0.1, got 0"},
		{`{"type":"number","maximum":5}`, 1152921504606846976, "at /: must be <= 5, got 1152921504606847000"},
		{`{"type":"number","maximum":5}`, 1e300, "at /: must be <= 5, got 1e+300"},
		{`{"type":"number","multipleOf":0.3}`, 0.5, "at /: must be a multiple of 0.3, got 0.5"},
	} {
		v := MustCompile("t", mustJSON(t, c.schema))
		if !v.Fast() {
			t.Fatalf("%s is not on the fast path", c.schema)
		}
		for _, r := range []struct {
			name string
			err  error
		}{{"fast path", v.Validate(c.value)}, {"reference", v.validateRef(c.value)}} {
			if r.err == nil || r.err.Error() != c.want {
				t.Errorf("%s: %s with %v: %v; want %s", r.name, c.schema, c.value, r.err, c.want)
			}
		}
	}
}
