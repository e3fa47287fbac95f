package host

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedDenialNamesWhoLacks: a nested call refused because the
// agent that started the chain (or a provider it passed through) lacks a
// capability blamed the provider making the call, which holds it: agent
// nowrite calling a tool of org.probe.deputy (WriteSpace(x)) that calls
// needs-x was told 'caller "org.probe.deputy" lacks WriteSpace(x)', and
// the config shows the deputy holding it. The refusal names the one that
// lacks it and where to grant it.
func TestNestedDenialNamesWhoLacks(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["nowrite"] = config.Agent{Grants: []string{"CallTool(*)"}}
		c.Agents["writer"] = config.Agent{Grants: []string{"CallTool(*)", "WriteSpace(x)"}}
	})
	addSystem(t, te, relayProvider("org.probe.deputy", "CallTool(*)", "WriteSpace(x)"))
	bare := native.New(abi.ProviderInfo{ID: "org.probe.bare", Capabilities: []string{"CallTool(*)"}})
	bare.MustRegister(abi.ToolDef{Name: "bare-relay", Version: "1.0.0", Parameters: obj(map[string]any{"tool": str, "params": map[string]any{}}, "tool")},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			m := params.(map[string]any)
			return env.CallTool(ctx, m["tool"].(string), "", m["params"])
		})
	addSystem(t, te, bare)
	target := native.New(abi.ProviderInfo{ID: "org.probe.target", Capabilities: []string{"WriteSpace(*)"}})
	target.MustRegister(abi.ToolDef{Name: "needs-x", Version: "1.0.0", CapabilityRequired: []string{"WriteSpace(x)"}},
		func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	addSystem(t, te, target)

	write := map[string]any{"tool": "write", "params": map[string]any{"space": "x", "data": "d"}}
	for _, c := range []struct {
		name, agent string
		params      map[string]any
		want        []string
	}{
		{"nowrite → deputy → needs-x", "nowrite", map[string]any{"tool": "needs-x"}, []string{`agent "nowrite"`, "agents.nowrite.grants"}},
		{"nowrite → deputy → write x", "nowrite", write, []string{`agent "nowrite"`, "agents.nowrite.grants"}},
		{"writer → deputy → bare → deputy → needs-x", "writer", map[string]any{"tool": "bare-relay", "params": map[string]any{"tool": "relay", "params": map[string]any{"tool": "needs-x"}}}, []string{"provider org.probe.bare"}},
		{"writer → deputy → bare → deputy → write x", "writer", map[string]any{"tool": "bare-relay", "params": map[string]any{"tool": "relay", "params": write}}, []string{"provider org.probe.bare"}},
	} {
		_, err := te.call(c.agent, "relay", c.params)
		var terr *abi.ToolError
		if !errors.As(err, &terr) || terr.Code != abi.CapabilityDenied {
			t.Errorf("%s: %v, want CapabilityDenied", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(terr.Message, w) {
				t.Errorf("%s: %q does not say %s", c.name, terr.Message, w)
			}
		}
	}
	// The writer reaches both directly through the deputy.
	for _, p := range []map[string]any{{"tool": "needs-x"}, write} {
		if _, err := te.call("writer", "relay", p); err != nil {
			t.Errorf("writer → deputy → %v: %v", p["tool"], err)
		}
	}
}
