package config

import "testing"

// TestSpaceGrantNoSpaceCanHave: a ReadSpace or WriteSpace grant
// naming a space no space can be, though each of its characters may be
// in one ("docs.", "aux", "-x", "a..b"), was taken and granted nothing,
// silently. It is refused as a grant with a bad character is.
func TestSpaceGrantNoSpaceCanHave(t *testing.T) {
	for src, want := range map[string]string{
		"agents:\n  a:\n    grants: [\"ReadSpace(docs.)\"]\n": `agents.a.grants[0]: capability "ReadSpace(docs.)": no space can be named so (space name "docs." ends with "."`,
		"agents:\n  a:\n    grants: [\"WriteSpace(aux)\"]\n":  `"aux" is a Windows device name`,
		"agents:\n  a:\n    grants: [\"ReadSpace(-x)\"]\n":    `no space can be named so`,
		"agents:\n  a:\n    grants: [\"ReadSpace(a..b)\"]\n":  `contains ".."`,
	} {
		parseErr(t, src, want)
	}
	if _, err := Parse([]byte("agents:\n  a:\n    grants: [\"ReadSpace(docs*)\", \"WriteSpace(a?)\", \"ReadSpace(console)\"]\n"), "c.yaml"); err != nil {
		t.Errorf("Parse: %v", err)
	}
}
