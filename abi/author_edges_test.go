package abi

import (
	"strings"
	"testing"
)

// TestNearKind: a capability whose kind is a likely typo of a
// built-in one (ReadSpaces, netwrk, clock) parsed as a custom kind that no
// grant ever matched, so a provider asking for it was told its trust level
// did not allow it. ParseCapability now refuses it naming the kind meant;
// custom kinds far from the built-in ones (and Block, near Clock only) still
// parse.
func TestNearKind(t *testing.T) {
	for s, want := range map[string]string{
		"ReadSpaces(docs)": "did you mean ReadSpace?",
		"Netwrk(h)":        "did you mean Network?",
		"inference":        "did you mean Inference?",
		"clock":            "did you mean Clock?",
		"RANDOM":           "did you mean Random?",
		"CallTools(*)":     "did you mean CallTool?",
	} {
		if _, err := ParseCapability(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCapability(%q) = %v, want an error with %q", s, err, want)
		}
	}
	for _, s := range []string{"ReadSpace(docs)", "Clock", "Random", "Billing(team-a)", "Camera", "Block", "Check"} {
		if _, err := ParseCapability(s); err != nil {
			t.Errorf("ParseCapability(%q): %v", s, err)
		}
	}
}
