package config

import (
	"slices"
	"testing"
)

// TestConfiguredCLIAgentIsWhatTheFileSays: the README's agents row gave
// cli's default grants and the keys an agent takes, so a newcomer wrote
// `cli: {methods: [...]}` to narrow its methods and found every call
// refused, "caller cli lacks CallTool(…)": an agent the file names is the
// whole of it, and cli given without grants holds none. The README says so
// now; this pins that, and that naming another agent keeps cli's defaults.
func TestConfiguredCLIAgentIsWhatTheFileSays(t *testing.T) {
	c, err := Parse([]byte("agents:\n  cli: {methods: [\"tools/*\"]}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Agents["cli"].Grants; len(g) != 0 {
		t.Errorf("cli given without grants holds %v, want none (README: the file's agent is the whole of it)", g)
	}
	c, err = Parse([]byte("agents:\n  reader: {grants: [\"CallTool(*)\"]}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Agents["cli"].Grants; !slices.Equal(g, Default().Agents["cli"].Grants) {
		t.Errorf("cli not named in the file holds %v, want the defaults %v", g, Default().Agents["cli"].Grants)
	}
}
