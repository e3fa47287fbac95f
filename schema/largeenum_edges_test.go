package schema

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

// TestLargeEnumsLookedUp: an enum is checked by a lookup, not by comparing
// the value with each member, on both paths and for every kind of member.
// An array of 200 000 items against an enum of 10 000 integers took 24 s on
// the fast path, and against 10 000 strings behind a $ref (pydantic puts
// every enum in $defs) 41 s on the reference, before the provider was asked
// and outside its deadline (TestLargeStringEnum covered strings on the fast
// path only); 20 000 items, which the reference now checks in a fraction
// of a second, took 4 s. The verdict and the message are those of
// comparing in turn.
func TestLargeEnumsLookedUp(t *testing.T) {
	ints := make([]any, 10000)
	strs := make([]any, 10000)
	for i := range ints {
		ints[i] = int64(i)
		strs[i] = fmt.Sprintf("city-%d", i)
	}
	for _, c := range []struct {
		name  string
		enum  []any
		ref   bool
		good  any
		bad   any
		wants string
	}{
		{"integers", ints, false, int64(9999), int64(10000), "value must be one of 0, 1, 2"},
		{"integers behind a $ref", ints, true, 9999.0, 0.5, "value must be one of 0, 1, 2"},
		{"strings behind a $ref", strs, true, "city-9999", "city-10000", "value must be one of 'city-0', 'city-1'"},
	} {
		var v *Validator
		if c.ref {
			v = MustCompile("t@1.0.0", map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/e"},
				"$defs": map[string]any{"e": map[string]any{"enum": c.enum}}})
		} else {
			v = MustCompile("t@1.0.0", map[string]any{"type": "array", "items": map[string]any{"enum": c.enum}})
		}
		arr := make([]any, 200000)
		if c.ref {
			arr = arr[:20000]
		}
		for i := range arr {
			arr[i] = c.good
		}
		start := time.Now()
		if err := v.Validate(arr); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %d items took %v", c.name, len(arr), d)
		}
		arr[15000] = c.bad
		var ve *ValidationError
		if err := v.Validate(arr); !errors.As(err, &ve) || ve.Path != "/15000" || len(ve.Message) < len(c.wants) || ve.Message[:len(c.wants)] != c.wants {
			t.Errorf("%s: %v; want at /15000: %s…", c.name, err, c.wants)
		}
	}

	// Members of every kind: each value gets the verdict comparing in
	// turn gives, on both paths.
	enum := []any{nil, true, "a", int64(1), 0.5, int64(-3), float64(1 << 60), int64(1152921504606847000),
		int64(math.MaxInt64), 1e300, []any{int64(1), "x"}, map[string]any{"k": 2.0}}
	probes := []any{nil, false, true, "a", "b", int64(1), 1.0, 0.5, 0.25, -3.0, int64(-3), math.Copysign(0, -1), int64(0),
		float64(1 << 60), int64(1 << 60), int64(1152921504606847000), int64(math.MaxInt64), float64(math.MaxInt64), 1e300,
		[]any{1.0, "x"}, []any{int64(1)}, map[string]any{"k": int64(2)}, map[string]any{"k": 3.0}, map[string]any{}}
	direct := MustCompile("t", map[string]any{"enum": enum})
	viaRef := MustCompile("t", map[string]any{"$ref": "#/$defs/e", "$defs": map[string]any{"e": map[string]any{"enum": enum}}})
	if !direct.Fast() || direct.fast.enumIdx == nil {
		t.Fatal("the enum is not indexed on the fast path")
	}
	for _, p := range probes {
		want := false
		for _, m := range enum {
			if eq, _ := equal(p, m); eq {
				want = true
			}
		}
		for _, r := range []struct {
			name string
			err  error
		}{{"fast", direct.Validate(p)}, {"reference", direct.validateRef(p)}, {"$ref", viaRef.Validate(p)}} {
			if (r.err == nil) != want {
				t.Errorf("%s: %#v: %v; want accepted %v", r.name, p, r.err, want)
			}
		}
	}

	// A failed enum is the schema's error, as the reference reports it,
	// though other keywords of the schema fail too.
	wide := MustCompile("t", map[string]any{"$ref": "#/$defs/e", "$defs": map[string]any{"e": map[string]any{"enum": strs, "maxLength": 3}}})
	if err := wide.Validate("nowhere"); err == nil || err.Error() != "at /: value must be one of 'city-0', 'city-1', 'city-2', 'city-3', 'city-4', 'city-5', 'city-6', 'city-7', 'city-8', 'city-9', … 9990 more" {
		t.Errorf("enum and maxLength failing: %v", err)
	}
}
