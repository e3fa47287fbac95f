package config

import (
	"strings"
	"testing"
)

// TestNullAgentRateUnderPerCallerRefused: `rate:` with no value (or null,
// ~) under an agent, written to exempt it as `rate_limits.global: null`
// lifts the global limit, decoded as no rate, which gives the agent
// rate_limits.per_caller's: the agent was held to it, silently. With
// per_caller set it is refused, saying so; without per_caller it is no
// limit, as leaving it out is, and taken.
func TestNullAgentRateUnderPerCallerRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"rate_limits:\n  per_caller: {per_second: 5}\nagents:\n  bot:\n    grants: [CallTool(*)]\n    rate:\n",
			`c.yaml:6: agents.bot.rate: empty (null), which gives the agent rate_limits.per_caller's 5/s, as leaving it out does`},
		{"rate_limits:\n  per_caller: {per_second: 2.5}\nagents:\n  bot:\n    rate: null\n",
			`c.yaml:5: agents.bot.rate: empty (null), which gives the agent rate_limits.per_caller's 2.5/s`},
		{"rate_limits:\n  per_caller: {per_second: 2.5}\nagents:\n  bot:\n    rate: ~\n",
			`c.yaml:5: agents.bot.rate: empty (null)`},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.yaml, err, tc.want)
		}
	}
	for _, ok := range []string{
		"agents:\n  bot:\n    rate: null\n",
		"rate_limits:\n  per_caller: {per_second: 5}\nagents:\n  bot:\n    grants: []\n",
		"rate_limits:\n  per_caller: {per_second: 5}\nagents:\n  bot:\n    rate: {per_second: 100000}\n",
	} {
		c, err := Parse([]byte(ok), "c.yaml")
		if err != nil {
			t.Errorf("%q: %v", ok, err)
			continue
		}
		if _, has := c.Agents["bot"]; !has {
			t.Errorf("%q: no agent bot", ok)
		}
	}
}
