package config

import (
	"strings"
	"testing"
)

// TestZeroRateSaysWhatLeavingItOutGives: a rate of 0 is refused with how
// to have no limit. "leave the rate out for no limit" was told of an
// agent's rate while rate_limits.per_caller was set, and of a tool's
// while a per_tool pattern matched it: left out, the agent has
// per_caller's rate and the tool the pattern's, so an operator exempting
// them wrote a config that held them to it. The refusal says which rate
// they get instead; where nothing else applies it still says to leave
// the rate out.
func TestZeroRateSaysWhatLeavingItOutGives(t *testing.T) {
	for _, tc := range []struct{ yaml, want, not string }{
		{"rate_limits:\n  per_caller: {per_second: 2}\nagents:\n  admin:\n    grants: []\n    rate: {per_second: 0}\n",
			"agents.admin.rate.per_second: must be positive, got 0 (left out, the agent has rate_limits.per_caller's 2/s", "leave the rate out"},
		{"agents:\n  admin:\n    grants: []\n    rate: {per_second: 0}\n",
			"agents.admin.rate.per_second: must be positive, got 0 (leave the rate out for no limit)", ""},
		{"rate_limits:\n  per_tool: {\"ech*\": {per_second: 3}, \"e*\": {per_second: 1}, echo: {per_second: 0}}\n",
			`rate_limits.per_tool.echo.per_second: must be positive, got 0 (left out, echo has the rate of rate_limits.per_tool["ech*"], 3/s`, "leave the rate out"},
		{"rate_limits:\n  per_tool: {\"x*\": {per_second: 3}, echo: {per_second: 0}}\n",
			"rate_limits.per_tool.echo.per_second: must be positive, got 0 (leave the rate out for no limit)", ""},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.not != "" && strings.Contains(err.Error(), tc.not) {
			t.Errorf("%q: %v\nwant %q", tc.yaml, err, tc.want)
		}
	}
}
