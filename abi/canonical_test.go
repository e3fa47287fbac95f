package abi

import (
	"math"
	"testing"
)

func TestIsCanonical(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want bool
	}{
		{"nil", nil, true},
		{"scalars", []any{true, "s", int64(1), 1.5}, true},
		{"nested", map[string]any{"a": []any{map[string]any{"b": nil}}}, true},
		{"int", 1, false},
		{"nested int", map[string]any{"a": []any{int32(1)}}, false},
		{"NaN", math.NaN(), false},
		{"inf in map", map[string]any{"x": math.Inf(1)}, false},
		{"map[string]string", map[string]string{}, false},
		{"bytes", []byte("x"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsCanonical(tc.v); got != tc.want {
				t.Fatalf("IsCanonical(%#v) = %v, want %v", tc.v, got, tc.want)
			}
			if tc.want {
				n, err := Normalize(tc.v)
				if err != nil || !IsCanonical(n) {
					t.Fatalf("Normalize disagrees: %v", err)
				}
			}
		})
	}
	v := map[string]any{"msg": "hello", "n": int64(42)}
	if a := testing.AllocsPerRun(100, func() { IsCanonical(v) }); a != 0 {
		t.Fatalf("IsCanonical allocates %v times", a)
	}
}
