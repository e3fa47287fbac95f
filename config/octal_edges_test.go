package config

import (
	"strings"
	"testing"
)

// TestLeadingZeroNumbersRefused: yaml.v3 reads a number with a leading
// 0 as YAML 1.1 octal when it can: limits.max_call_depth: 010 was 8, and
// a rate's per_second: 010 was 8 calls a second, silently; -010 was
// refused as "got -8". One it cannot (08, a zero-padded 04194304) was
// refused as "want an integer". Each is refused saying why; 0, 0o10,
// 0x10 and 1_000, and a float such as 0.5 or 010.5, are taken.
func TestLeadingZeroNumbersRefused(t *testing.T) {
	const why = " has a leading 0, which makes YAML read it as octal (010 is 8): write it without the leading 0, or with 0o for octal"
	for _, tc := range []struct{ yaml, want string }{
		{"limits:\n  max_call_depth: 010\n", "c.yaml:2: limits.max_call_depth: 010" + why},
		{"limits:\n  max_call_depth: -010\n", "c.yaml:2: limits.max_call_depth: -010" + why},
		{"limits:\n  max_params_bytes: 04194304\n", "c.yaml:2: limits.max_params_bytes: 04194304" + why},
		{"agents:\n  cli:\n    rate: {per_second: 010}\n", "c.yaml:3: agents.cli.rate.per_second: 010" + why},
		{"audit:\n  max_bytes: 0_1048576\n", "c.yaml:2: audit.max_bytes: 0_1048576" + why},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
	c, err := Parse([]byte("limits:\n  max_call_depth: 0o10\n  max_tools_per_provider: 0x10\n  max_space_bytes: 0\n  max_params_bytes: 1_000\nagents:\n  cli:\n    rate: {per_second: 0.5}\n  b:\n    rate: {per_second: 010.5}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if l := c.Limits; l.MaxCallDepth != 8 || l.MaxToolsPerProvider != 16 || l.MaxParamsBytes != 1000 || c.Agents["cli"].Rate.PerSecond != 0.5 || c.Agents["b"].Rate.PerSecond != 10.5 {
		t.Errorf("taken as %+v, rates %v %v", l, c.Agents["cli"].Rate, c.Agents["b"].Rate)
	}
	if _, err := Parse([]byte("limits:\n  max_call_depth: 0\n"), "c.yaml"); err == nil || strings.Contains(err.Error(), "leading 0") {
		t.Errorf("0: %v", err)
	}
}
