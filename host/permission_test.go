package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// levelProvider offers one tool per permission level ("lvl-<level>"), a
// tool without a level (registry default: medium) and "relay", which calls
// the tool named in its params.
func levelProvider() *native.Provider {
	p := native.New(abi.ProviderInfo{ID: "org.test.levels", Capabilities: []string{"CallTool(*)"}})
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	for _, l := range []string{abi.PermissionPublic, abi.PermissionLow, abi.PermissionMedium, abi.PermissionHigh, abi.PermissionCritical} {
		p.MustRegister(abi.ToolDef{Name: "lvl-" + l, PermissionLevel: l}, ok)
	}
	p.MustRegister(abi.ToolDef{Name: "lvl-unset"}, ok)
	p.MustRegister(abi.ToolDef{Name: "relay", PermissionLevel: abi.PermissionPublic},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			return env.CallTool(ctx, params.(map[string]any)["tool"].(string), "", nil)
		})
	return p
}

func TestPermissionLevels(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		all := []string{"CallTool(*)"}
		c.DefaultAgent = "alice"
		c.Agents["alice"] = config.Agent{Grants: append(c.Agents["alice"].Grants, all...)} // default agent, no max: critical
		c.Agents["remote"] = config.Agent{Grants: all}                                     // no max: high
		c.Agents["viewer"] = config.Agent{Grants: all, MaxPermission: "low"}
		c.Agents["kiosk"] = config.Agent{Grants: all, MaxPermission: "public"}
		c.Agents["root"] = config.Agent{Grants: all, MaxPermission: "critical"}
	})
	if err := te.h.AddProvider(context.Background(), levelProvider(), ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	levels := []string{"public", "low", "medium", "unset", "high", "critical"}
	cases := []struct {
		agent   string
		highest string // the highest tool level allowed
	}{
		{"alice", "critical"},
		{"remote", "high"},
		{"viewer", "low"},
		{"kiosk", "public"},
		{"root", "critical"},
	}
	for _, c := range cases {
		allowed := true
		for _, l := range levels {
			_, err := te.call(c.agent, "lvl-"+l, nil)
			switch {
			case allowed && err != nil:
				t.Errorf("%s → lvl-%s: %v, want allowed", c.agent, l, err)
			case !allowed && abi.CodeOf(err) != abi.CapabilityDenied:
				t.Errorf("%s → lvl-%s: %v, want CapabilityDenied", c.agent, l, err)
			case !allowed:
				msg := err.Error()
				want := l
				if l == "unset" {
					want = "medium"
				}
				if !strings.Contains(msg, "permission level "+want) || !strings.Contains(msg, "up to level "+c.highest) || !strings.Contains(msg, "agents."+c.agent+".max_permission") {
					t.Errorf("%s → lvl-%s: message %q does not name both levels and the config key", c.agent, l, msg)
				}
				data, _ := err.(*abi.ToolError).Data.(map[string]any)
				if data["max_permission"] != c.highest || data["permission_level"] != want {
					t.Errorf("%s → lvl-%s: data %v", c.agent, l, data)
				}
			}
			if l == c.highest || (c.highest == "medium" && l == "unset") {
				allowed = false
			}
		}
	}
	// A nested call keeps the ceiling of the agent that started it: the
	// relay tool is public, but cannot reach a high tool for viewer.
	if _, err := te.call("viewer", "relay", map[string]any{"tool": "lvl-low"}); err != nil {
		t.Fatalf("viewer → relay → lvl-low: %v", err)
	}
	_, err := te.call("viewer", "relay", map[string]any{"tool": "lvl-high"})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "nested call keeps the ceiling") {
		t.Fatalf("viewer → relay → lvl-high: %v, want CapabilityDenied (inherited ceiling)", err)
	}
	if _, err := te.call("root", "relay", map[string]any{"tool": "lvl-critical"}); err != nil {
		t.Fatalf("root → relay → lvl-critical: %v", err)
	}
}

func TestPermissionConfig(t *testing.T) {
	cfg := config.Default()
	if got := cfg.AgentMaxPermission(config.DefaultAgentName); got != abi.PermissionCritical {
		t.Errorf("default agent ceiling %q, want critical", got)
	}
	if got := cfg.AgentMaxPermission("mcp"); got != config.DefaultMaxPermission {
		t.Errorf("other agent ceiling %q, want %q", got, config.DefaultMaxPermission)
	}
	cfg.Agents["bad"] = config.Agent{Grants: []string{"CallTool(*)"}, MaxPermission: "extreme"}
	if _, err := New(Options{Config: cfg}); err == nil || !strings.Contains(err.Error(), "agents.bad.max_permission") {
		t.Fatalf("New with a bad max_permission = %v", err)
	}
}
