package config

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestIPv6PatternThatMatchesNothing: hosts are matched in canonical form
// (abi.NetworkHost: an IPv6 address in hex groups without leading zeros,
// an IPv4-mapped one as its IPv4 address), so a grant of
// Network(::ffff:10.0.0.*) or Network(2001:0db8::*) allowed no host, yet
// was taken without a word, where a port in a Network pattern is refused
// as matching no host. Each is refused saying how to write it; patterns
// in canonical form still pass, and do match.
func TestIPv6PatternThatMatchesNothing(t *testing.T) {
	for _, tc := range []struct{ grant, want, host string }{
		{"Network(::ffff:10.0.0.*)", "write Network(10.0.0.*)", "::ffff:10.0.0.1"},
		{"Network(2001:0db8::*)", `write "db8" for the group "0db8"`, "2001:db8::1"},
		{"Network(64:ff9b::10.0.0.*)", "matches no host", "64:ff9b::a00:1"},
		{"Network(fe80:0:0:0:00:*)", `write "0" for the group "00"`, "fe80::1"},
	} {
		c := abi.MustCapability(tc.grant)
		if h, _ := abi.NetworkHost(tc.host); (abi.Grants{c}).Allows(abi.Capability{Kind: abi.CapNetwork, Arg: h, HasArg: true}) {
			t.Fatalf("%s allows %s: the premise is wrong", tc.grant, h)
		}
		_, err := Parse([]byte("agents:\n  a:\n    grants: [\""+tc.grant+"\"]\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "agents.a.grants[0]") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want refused: %q", tc.grant, err, tc.want)
		}
	}
	for _, tc := range []struct{ grant, host string }{
		{"Network(2001:db8::*)", "2001:0db8:0::1"},
		{"Network(fe80::*)", "FE80::1"},
		{"Network(10.0.0.*)", "::ffff:10.0.0.1"},
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
