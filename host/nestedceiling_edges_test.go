package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedCeilingNamesAgent: a nested call refused by the permission
// ceiling it inherits said "a nested call keeps the ceiling of the agent
// that started it", naming as caller only the provider making the call:
// which agent's agents.<name>.max_permission to raise was left to be
// found. The refusal names the agent and its key, through two relays too.
func TestNestedCeilingNamesAgent(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["viewer"] = config.Agent{Grants: []string{"CallTool(*)"}, MaxPermission: "medium"}
	})
	addSystem(t, te, relayProvider("org.probe.relay", "CallTool(*)"))
	p := native.New(abi.ProviderInfo{ID: "org.probe.high"})
	p.MustRegister(abi.ToolDef{Name: "lvl-high", Version: "1.0.0", PermissionLevel: abi.PermissionHigh},
		func(context.Context, any, abi.Env) (any, error) { return "high", nil })
	addSystem(t, te, p)
	for _, params := range []map[string]any{
		{"tool": "lvl-high"},
		{"tool": "relay", "params": map[string]any{"tool": "lvl-high"}},
	} {
		_, err := te.call("viewer", "relay", params)
		if abi.CodeOf(err) != abi.CapabilityDenied {
			t.Fatalf("viewer → relay %v: %v, want CapabilityDenied", params, err)
		}
		for _, want := range []string{`caller "org.probe.relay"`, "up to level medium", `agent "viewer"`, "agents.viewer.max_permission"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("viewer → relay %v: %q does not name %q", params, err, want)
			}
		}
	}
}
