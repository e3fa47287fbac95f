package abi

import "testing"

// TestNetworkHostInternationalized: an internationalized host name is
// matched in its ASCII form (as the resolver looks it up). Network(bücher.de)
// was refused as a grant ("neither a DNS name nor an IP address"), and an
// MCP server at https://bücher.de required Network(bücher.de), which only
// Network(*) satisfied (p188's leftover).
func TestNetworkHostInternationalized(t *testing.T) {
	for in, want := range map[string]string{
		"bücher.de":        "xn--bcher-kva.de",
		"BÜCHER.de.":       "xn--bcher-kva.de",
		"xn--bcher-kva.de": "xn--bcher-kva.de",
		"例え.テスト":           "xn--r8jz45g.xn--zckzah",
		"api.münchen.de":   "api.xn--mnchen-3ya.de",
	} {
		got, err := NetworkHost(in)
		if err != nil || got != want {
			t.Errorf("NetworkHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"bü cher.de", "☃\x00.com"} {
		if got, err := NetworkHost(bad); err == nil {
			t.Errorf("NetworkHost(%q) = %q; want an error", bad, got)
		}
	}
	// A grant names the host either way, and allows it.
	c, err := ParseCapability("Network(bücher.de)")
	if err != nil {
		t.Fatal(err)
	}
	if c.Arg != "xn--bcher-kva.de" {
		t.Errorf("Network(bücher.de) holds %q, want xn--bcher-kva.de", c.Arg)
	}
	need, _ := ParseCapability("Network(xn--bcher-kva.de)")
	if !c.Covers(need) {
		t.Errorf("Network(bücher.de) does not allow Network(xn--bcher-kva.de)")
	}
	// So does a pattern, label by label.
	w, err := ParseCapability("Network(*.München.de)")
	if err != nil {
		t.Fatal(err)
	}
	if need, _ := ParseCapability("Network(api.xn--mnchen-3ya.de)"); w.Arg != "*.xn--mnchen-3ya.de" || !w.Covers(need) {
		t.Errorf("Network(*.München.de) holds %q; want *.xn--mnchen-3ya.de, allowing api.xn--mnchen-3ya.de", w.Arg)
	}
}
