package config

import (
	"strings"
	"testing"
)

// TestNullListMeaningAllRefused: a list key given with no value
// (`grants:` or `methods:` and nothing after it, or ~) decodes as no list
// at all, which for two keys meant the opposite of the empty list the
// operator wrote: providers.ID.grants narrowed nothing (the provider kept
// all its trust level allows, where [] leaves it nothing) and
// agents.NAME.methods allowed every JSON-RPC method (where [] allows
// none). Both are refused, saying what [] and leaving the key out do;
// [] and a left-out key are taken as before, and so is a null list whose
// nil means none (an agent's grants).
func TestNullListMeaningAllRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"providers:\n  org.x.y:\n    grants:\n", `c.yaml:3: providers["org.x.y"].grants: empty (null), which would narrow nothing: give [] for the provider to hold nothing`},
		{"providers:\n  org.x.y:\n    trust: Community\n    grants: ~\n", `c.yaml:4: providers["org.x.y"].grants: empty (null), which would narrow nothing`},
		{"agents:\n  bot:\n    grants: [CallTool(*)]\n    methods:\n", `c.yaml:4: agents.bot.methods: empty (null), which would allow every method: give [] to allow none but initialize`},
		{"agents:\n  bot:\n    methods: null\n", `c.yaml:3: agents.bot.methods: empty (null), which would allow every method`},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.yaml, err, tc.want)
		}
	}
	c, err := Parse([]byte("providers:\n  org.x.y:\n    grants: []\n  org.x.z:\n    disabled: false\nagents:\n  bot:\n    methods: []\n    grants:\n  all:\n    grants: [CallTool(*)]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Providers["org.x.y"].Grants; g == nil || len(g) != 0 {
		t.Errorf("grants: [] = %#v, want empty, not nil", g)
	}
	if c.Providers["org.x.z"].Grants != nil {
		t.Error("grants left out is not nil")
	}
	if c.Agents["bot"].MethodAllowed("tools/call") || !c.Agents["all"].MethodAllowed("tools/call") {
		t.Error("methods: [] allows tools/call, or methods left out does not")
	}
	if len(c.Agents["bot"].Grants) != 0 {
		t.Error("grants: (null) of an agent holds something")
	}
}
