package abi

import (
	"strings"
	"testing"
)

// TestClockRandomTakeNoArgument: Clock and Random, like Inference, are
// held or not. "Clock(wall)" and "Random(real)" were taken as custom
// arguments: a provider asking for them, or a trust.caps giving them,
// got a guest's fake clock and random source without a word, while
// "Random()" gave the real one. Each is refused naming the kind, as
// "Inference(x)" is; the bare kinds still parse and cover themselves.
func TestClockRandomTakeNoArgument(t *testing.T) {
	for _, s := range []string{"Clock(wall)", "Random(real)", "Clock()", "Random()", "Clock(*)"} {
		kind, _, _ := strings.Cut(s, "(")
		if _, err := ParseCapability(s); err == nil || !strings.Contains(err.Error(), kind+" takes no argument") {
			t.Errorf("ParseCapability(%q): %v, want %q", s, err, kind+" takes no argument")
		}
	}
	for _, s := range []string{"Clock", "Random"} {
		c, err := ParseCapability(s)
		if err != nil {
			t.Fatalf("ParseCapability(%q): %v", s, err)
		}
		if !(Grants{c}).Allows(Capability{Kind: s}) {
			t.Errorf("%s does not allow itself", s)
		}
	}
}
