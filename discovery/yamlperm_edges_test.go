package discovery

import (
	"strings"
	"testing"
)

// TestYAMLPermissionRuleMatchingNoCapabilityRefused: docs/discovery.md's
// tool.aios.yaml example sets {skill: "notes.delete", level: critical}
// while capabilities lists only notes.create. A permissions rule applies
// only to the listed capabilities, so the artifact's notes.delete was
// served at its own level (medium), callable by agents whose
// max_permission is high, and nothing said the rule did nothing. Now a rule
// that sets the level of no listed capability (none matches, or an earlier
// rule takes them all) is refused with its line, saying to list the tool.
func TestYAMLPermissionRuleMatchingNoCapabilityRefused(t *testing.T) {
	head := "tool: {id: org.example.notes, name: Notes, version: 1.2.0}\n" +
		"capabilities:\n  - {id: notes.create, name: Create a note}\n"
	cases := []struct{ name, perms, want string }{
		{"unlisted tool", "permissions:\n  - {skill: \"notes.delete\", level: critical}\n  - {skill: \"notes.*\", level: high}\n",
			`tool.aios.yaml:5: permissions[0].skill: "notes.delete" sets the level of none of capabilities (listed: notes.create`},
		{"shadowed rule", "permissions:\n  - {skill: \"*\", level: high}\n  - {skill: \"notes.create\", level: critical}\n",
			`tool.aios.yaml:6: permissions[1].skill: "notes.create" sets the level of none`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseYAML([]byte(head+c.perms), "tool.aios.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "list it there") {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Every rule used: accepted, and the levels are the rules'.
	card, err := ParseYAML([]byte(head+"  - {id: notes.delete, name: Delete a note}\npermissions:\n  - {skill: \"notes.delete\", level: critical}\n  - {skill: \"notes.*\", level: high}\n"), "tool.aios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range card.Skills {
		got[s.ID] = string(s.PermissionLevel)
	}
	if got["notes.create"] != "high" || got["notes.delete"] != "critical" {
		t.Fatalf("levels %v, want notes.create high, notes.delete critical", got)
	}
}
