package config

import (
	"strings"
	"testing"
)

// TestFloatOutOfRangeSaysSo: per_second: 1e400, a number too large for a
// float, was refused "cannot unmarshal !!str `1e400` into float64 (want a
// number)", which it is (yaml.v3 tags it a string; p192's leftover). It
// is refused as out of range.
func TestFloatOutOfRangeSaysSo(t *testing.T) {
	for _, v := range []string{"1e400", "-1e400"} {
		_, err := Parse([]byte("rate_limits:\n  global:\n    per_second: "+v+"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "c.yaml:3: rate_limits.global.per_second: "+v+" is out of range") || strings.Contains(err.Error(), "want a number") {
			t.Errorf("per_second: %s: %v", v, err)
		}
	}
	// A quoted one is a string, as before.
	if _, err := Parse([]byte("rate_limits:\n  global:\n    per_second: \"fast\"\n"), "c.yaml"); err == nil || !strings.Contains(err.Error(), "want a number") {
		t.Errorf("per_second: \"fast\": %v", err)
	}
}
