package config

import (
	"strings"
	"testing"
)

// TestRateNotFinite: a rate of .nan or .inf per second passed
// validation; NaN makes the limiter admit one call and then refuse every
// call for good (host/policy.go newLimiter, ratelimit.New).
func TestRateNotFinite(t *testing.T) {
	for _, v := range []string{".nan", ".NaN", ".inf", "-.inf"} {
		_, err := Parse([]byte("rate_limits:\n  global: {per_second: "+v+"}\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "c.yaml:2: rate_limits.global.per_second") {
			t.Errorf("per_second %s: err = %v", v, err)
		}
	}
}

// TestMissingKeyLine: an error about a key the file leaves out names
// the line of the mapping that lacks it.
func TestMissingKeyLine(t *testing.T) {
	_, err := Parse([]byte("rate_limits:\n  per_tool:\n    x: {burst: 3}\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:3: rate_limits.per_tool.x.per_second") {
		t.Errorf("err = %v", err)
	}
}

// TestNullGrant: a null entry in a grants list is not a capability.
func TestNullGrant(t *testing.T) {
	_, err := Parse([]byte("agents:\n  cli:\n    grants: [ReadSpace(a), null]\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:3: agents.cli.grants[1]: empty entry") {
		t.Errorf("err = %v", err)
	}
}

// TestTypeErrorsSayWhatToWrite: a rate, a duration or a count written
// the wrong way was refused naming Go types ("into config.Rate").
func TestTypeErrorsSayWhatToWrite(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"rate_limits:\n  global: 10/s\n", "c.yaml:2: rate_limits.global: cannot unmarshal !!str `10/s` into config.Rate (want a mapping such as {per_second: 10, burst: 20})"},
		{"limits:\n  max_deadline: 5\n", "(want a duration such as 30s"},
		{"audit:\n  max_bytes: lots\n", "(want a whole number)"}, // 1MiB: TestSizeUnitsSayBytes
		{"rate_limits:\n  global: {per_second: fast}\n", "(want a number)"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
