package abi

import "testing"

// Host names are matched in canonical form (NetworkHost: lower case, no
// final dot); a Network grant written in capitals must match them too.
func TestNetworkGrantCase(t *testing.T) {
	for _, grant := range []string{"Network(API.Example.com)", "Network(*.EXAMPLE.com)", "Network(api.example.com.)"} {
		g, err := ParseGrants([]string{grant})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := NetworkHost("api.example.com")
		if !g.Allows(Capability{Kind: CapNetwork, Arg: h, HasArg: true}) {
			t.Errorf("%s does not allow Network(%s)", grant, h)
		}
	}
}
