package abi

import "testing"

// TestNetworkIPPatternNotName: an address pattern (Network(10.0.0.*),
// a subnet) matched DNS names beginning with its digits, such as
// "10.0.0.1.attacker.example", which resolve wherever their owner says:
// an address pattern matches IP addresses only.
func TestNetworkIPPatternNotName(t *testing.T) {
	for _, c := range []struct {
		pattern, host string
		want          bool
	}{
		{"10.0.0.*", "10.0.0.7", true},
		{"10.0.0.*", "10.0.0.1.attacker.example", false},
		{"10.0.0.*", "10.0.0.1.nip.io", false},
		{"10.*", "10.1.2.3", true},
		{"10.*", "10.nip.io", false},
		{"fe80::*", "fe80::1", true},
		{"192.168.1.?", "192.168.1.5", true},
		{"*.example.com", "api.example.com", true},
		{"*", "10.0.0.1.attacker.example", true},
		{"*.1", "10.0.0.1", true},
		{"*.1", "host.1", false},
		{"a*.example.com", "a1.example.com", true},
		{"api.example.com", "api.example.com", true},
	} {
		g := MustCapability("Network(" + c.pattern + ")")
		h, err := NetworkHost(c.host)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Covers(Capability{Kind: CapNetwork, Arg: h, HasArg: true}); got != c.want {
			t.Errorf("Network(%s) covers %s: %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
}
