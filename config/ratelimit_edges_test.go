package config

import (
	"strings"
	"testing"
)

// TestRateGlobalBurstDefault: a file that sets rate_limits.global's
// per_second and leaves burst out got the default global's burst (20000):
// "global: {per_second: 5}" admitted 20000 calls at once instead of the
// documented ⌈per_second⌉.
func TestRateGlobalBurstDefault(t *testing.T) {
	for _, tc := range []struct {
		yaml  string
		burst int
	}{
		{"rate_limits:\n  global: {per_second: 5}\n", 5},
		{"rate_limits:\n  global:\n    per_second: 0.5\n", 1},
		{"rate_limits:\n  global: {per_second: 5, burst: 7}\n", 7},
		{"rate_limits:\n  per_caller: {per_second: 3}\n", 0}, // global untouched
	} {
		c, err := Parse([]byte(tc.yaml), "c.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		g := c.RateLimits.Global
		if strings.Contains(tc.yaml, "global") {
			if g.BurstOf() != tc.burst {
				t.Errorf("%q: global burst %d, want %d", tc.yaml, g.BurstOf(), tc.burst)
			}
		} else if g == nil || g.PerSecond != 10000 || g.BurstOf() != 20000 {
			t.Errorf("%q: default global changed: %+v", tc.yaml, g)
		}
	}
	// A rate given without per_second is still an error naming the key
	// (not the default's 10000/s filled in).
	_, err := Parse([]byte("rate_limits:\n  global: {burst: 3}\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2: rate_limits.global.per_second: must be positive") {
		t.Errorf("global without per_second: %v", err)
	}
}

// TestRateNotMapping: a rate written as something else than a
// mapping is refused in the configuration's words, with its key.
func TestRateNotMapping(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"rate_limits:\n  global: 10/s\n", "c.yaml:2: rate_limits.global: cannot unmarshal !!str `10/s` into config.Rate (want a mapping such as"},
		{"rate_limits:\n  per_caller: [1, 2]\n", "c.yaml:2: rate_limits.per_caller: cannot unmarshal !!seq into config.Rate (want a mapping such as"},
		{"agents:\n  cli:\n    rate: 12345678901\n", "c.yaml:3: agents.cli.rate: cannot unmarshal !!int `1234567...` into config.Rate"},
		{"rate_limits:\n  per_tool:\n    echo: fast\n", "c.yaml:3: rate_limits.per_tool.echo: cannot unmarshal !!str `fast` into config.Rate"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	// An anchored rate used twice is read whole at both places.
	c, err := Parse([]byte("rate_limits:\n  global: &r {per_second: 4}\n  per_caller: *r\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g, p := c.RateLimits.Global, c.RateLimits.PerCaller; g.BurstOf() != 4 || p.BurstOf() != 4 || p.PerSecond != 4 {
		t.Fatalf("anchored rate: global %+v, per_caller %+v", g, p)
	}
}

// TestRateGlobalOffHint: the global limit cannot be turned off by
// leaving it out (that is the default's 10000/s): its error says how.
func TestRateGlobalOffHint(t *testing.T) {
	_, err := Parse([]byte("rate_limits:\n  global: {per_second: 0}\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "rate_limits.global: null for no global limit") {
		t.Errorf("err = %v", err)
	}
	c, err := Parse([]byte("rate_limits:\n  global: null\n"), "c.yaml")
	if err != nil || c.RateLimits.Global != nil {
		t.Errorf("global: null: %v, %+v", err, c.RateLimits.Global)
	}
}
