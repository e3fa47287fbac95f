package config

import "testing"

// TestGrantKindTypos: a grant whose kind is a likely typo of a built-in
// kind (it would grant nothing, silently) is refused naming the kind it
// resembles, with the line; built-in kinds and custom kinds far from them
// are accepted.
func TestGrantKindTypos(t *testing.T) {
	for src, want := range map[string]string{
		"agents:\n  a:\n    grants: [\"ReadSpce(docs)\"]\n":   `c.yaml:3: agents.a.grants[0]: capability "ReadSpce(docs)": unknown kind "ReadSpce", did you mean ReadSpace?`,
		"agents:\n  a:\n    grants: [inference]\n":            `did you mean Inference?`,
		"agents:\n  a:\n    grants: [\"CallTools(*)\"]\n":     `did you mean CallTool?`,
		"providers:\n  org.x:\n    grants: [\"Netwrk(h)\"]\n": `providers["org.x"].grants[0]: capability "Netwrk(h)": unknown kind "Netwrk", did you mean Network?`,
	} {
		parseErr(t, src, want)
	}
	for _, src := range []string{
		"agents:\n  a:\n    grants: [\"ReadSpace(docs)\", Inference, \"Network(*.example.com)\", \"CallTool(*)\", \"WriteSpace(x)\"]\n",
		"agents:\n  a:\n    grants: [\"Billing(team-a)\", \"Camera\"]\n",
	} {
		if _, err := Parse([]byte(src), "c.yaml"); err != nil {
			t.Errorf("Parse(%q): %v", src, err)
		}
	}
}
