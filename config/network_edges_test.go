package config

import "testing"

// TestNetworkGrantsThatMatchNothing: a Network pattern is matched
// against a host name or IP address; one with a port, a scheme or a path
// can match none, and granted nothing silently.
func TestNetworkGrantsThatMatchNothing(t *testing.T) {
	for src, want := range map[string]string{
		"agents:\n  a:\n    grants: [\"Network(api.example.com:443)\"]\n":     `agents.a.grants[0]: capability "Network(api.example.com:443)": a port`,
		"agents:\n  a:\n    grants: [\"Network(https://api.example.com)\"]\n": `'/' is in no host name`,
		"agents:\n  a:\n    grants: [\"Network(*.example.com:*)\"]\n":         `a port`,
		"providers:\n  org.x:\n    grants: [\"Network(10.0.0.1:80)\"]\n":      `a port`,
		"agents:\n  a:\n    grants: [\"Network([::1])\"]\n":                   `'[' is in no host name`,
	} {
		parseErr(t, src, want)
	}
	if _, err := Parse([]byte("agents:\n  a:\n    grants: [\"Network(*.Example.com.)\", \"Network(::1)\", \"Network(fe80::*)\", \"Network(10.0.0.*)\", \"Network(::ffff:10.0.0.1)\", \"Network(my_host-1)\", \"Network(*)\"]\n"), "c.yaml"); err != nil {
		t.Errorf("valid Network grants refused: %v", err)
	}
}
