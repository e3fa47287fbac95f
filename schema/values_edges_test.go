package schema

import (
	"math"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestNumberBoundMessages: a number that fails a numeric bound is
// named exactly, as are the bound and the kind of check, whichever path
// validates it. The reference path (uint64 values, schemas with anyOf —
// WIT options and variants) printed both numbers rounded to 16 digits:
// "maximum: got 9.223372036854776×10¹⁸, want 9.223372036854776×10¹⁸" for
// 2^63 against an s64's maximum 2^63−1 (the same number twice), and the
// fast path wrote a bound of 1e308 as 309 digits.
func TestNumberBoundMessages(t *testing.T) {
	for _, c := range []struct {
		schema string
		value  any
		want   []string
	}{
		{`{"type":"integer","maximum":9223372036854775807}`, uint64(1 << 63), []string{"must be <= 9223372036854775807, got 9223372036854775808"}},
		{`{"type":"integer","minimum":0,"maximum":18446744073709551614}`, uint64(math.MaxUint64), []string{"must be <= 18446744073709551614, got 18446744073709551615"}},
		{`{"type":"integer","exclusiveMaximum":18446744073709551615}`, uint64(math.MaxUint64), []string{"must be < 18446744073709551615, got 18446744073709551615"}},
		{`{"type":"integer","multipleOf":2}`, uint64(math.MaxUint64), []string{"must be a multiple of 2, got 18446744073709551615"}},
		{`{"anyOf":[{"type":"null"},{"type":"integer","maximum":9007199254740993}]}`, int64(9007199254740995), []string{"must be <= 9007199254740993, got 9007199254740995"}},
		{`{"anyOf":[{"type":"null"},{"type":"integer","minimum":-9007199254740993}]}`, int64(-9007199254740995), []string{"must be >= -9007199254740993, got -9007199254740995"}},
		{`{"anyOf":[{"type":"null"},{"type":"number","exclusiveMinimum":0.1}]}`, 0.1, []string{"must be > 0.1, got 0.1"}},
		{`{"type":"number","maximum":1e308}`, math.MaxFloat64, []string{"must be <= 1e+308, got 1.7976931348623157e+308"}},
		{`{"anyOf":[{"type":"null"},{"type":"number","maximum":1e308}]}`, math.MaxFloat64, []string{"must be <= 1e+308, got 1.7976931348623157e+308"}},
	} {
		var doc any
		if err := abi.UnmarshalJSONValue([]byte(c.schema), &doc); err != nil {
			t.Fatal(err)
		}
		v, err := Compile("probe", doc.(map[string]any))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		for _, path := range []struct {
			name string
			err  error
		}{{"Validate", v.Validate(c.value)}, {"reference", v.validateRef(c.value)}} {
			if path.err == nil {
				t.Errorf("%s %s accepted %v", path.name, c.schema, c.value)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(path.err.Error(), w) {
					t.Errorf("%s %s with %v: %q does not say %q", path.name, c.schema, c.value, path.err.Error(), w)
				}
			}
		}
	}
}
