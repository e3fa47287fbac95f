package config

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestIPv4PatternThatMatchesNothing: a Network pattern of digits, dots
// and wildcards matches IP addresses only, in canonical form (four
// numbers from 0 to 255 without leading zeros), so Network(192.168.001.*),
// Network(10.0.0.1.*) and Network(300.*) allowed no address and were
// taken without a word. Each is refused saying why; canonical patterns
// pass and match.
func TestIPv4PatternThatMatchesNothing(t *testing.T) {
	for _, tc := range []struct{ grant, want, host string }{
		{"Network(192.168.001.*)", `write "1" for "001"`, "192.168.1.5"},
		{"Network(10.0.0.1.*)", "holds 4 dots", "10.0.0.1"},
		{"Network(300.*)", `"300" is over 255`, "30.0.0.1"},
	} {
		h, _ := abi.NetworkHost(tc.host)
		if (abi.Grants{abi.MustCapability(tc.grant)}).Allows(abi.Capability{Kind: abi.CapNetwork, Arg: h, HasArg: true}) {
			t.Fatalf("%s allows %s: the premise is wrong", tc.grant, h)
		}
		_, err := Parse([]byte("agents:\n  a:\n    grants: [\""+tc.grant+"\"]\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "agents.a.grants[0]") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want refused: %q", tc.grant, err, tc.want)
		}
	}
	for _, tc := range []struct{ grant, host string }{
		{"Network(192.168.1.*)", "192.168.1.5"},
		{"Network(10.*)", "10.0.0.1"},
		{"Network(*.1)", "10.0.0.1"},
		{"Network(10.0.0.1?)", "10.0.0.10"},
	} {
		if _, err := Parse([]byte("agents:\n  a:\n    grants: [\""+tc.grant+"\"]\n"), "c.yaml"); err != nil {
			t.Errorf("%s: %v", tc.grant, err)
		}
		h, _ := abi.NetworkHost(tc.host)
		if !(abi.Grants{abi.MustCapability(tc.grant)}).Allows(abi.Capability{Kind: abi.CapNetwork, Arg: h, HasArg: true}) {
			t.Errorf("%s does not allow %s", tc.grant, tc.host)
		}
	}
}
