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

// TestDenialNamesBothSidesWhenBothLack: a host call that neither the
// caller's grants nor the provider's allow was refused naming one side
// only — the caller for SpaceWrite, Complete and a read from a named
// space, the provider for a read by id alone —, so an operator who
// granted it there was refused again, for the other side. The refusal
// names both, each with where to grant it, at top level and nested.
func TestDenialNamesBothSidesWhenBothLack(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["bare"] = config.Agent{Grants: []string{"CallTool(*)"}}
	})
	p := native.New(abi.ProviderInfo{ID: "org.probe.lacking", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "write-x", Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
		_, err := env.SpaceWrite(ctx, "x", []byte("d"))
		return nil, err
	})
	p.MustRegister(abi.ToolDef{Name: "read-x", Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
		_, err := env.SpaceRead(ctx, "x", "sha256:"+strings.Repeat("ab", 32))
		return nil, err
	})
	p.MustRegister(abi.ToolDef{Name: "infer", Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
		_, err := env.Complete(ctx, abi.CompleteRequest{})
		return nil, err
	})
	p.MustRegister(abi.ToolDef{Name: "read-any", Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
		_, err := env.SpaceRead(ctx, "", "sha256:"+strings.Repeat("ab", 32))
		return nil, err
	})
	addSystem(t, te, p)
	addSystem(t, te, relayProvider("org.probe.relay", "CallTool(*)"))
	for _, c := range []struct {
		tool, caller string
		nested       bool
		want         []string
	}{
		{"write-x", "bare", false, []string{`caller "bare" lacks WriteSpace(x)`, "provider org.probe.lacking (trust System) does not hold WriteSpace(x)"}},
		{"read-x", "bare", false, []string{`caller "bare" lacks ReadSpace(x)`, "provider org.probe.lacking (trust System) does not hold ReadSpace(x)"}},
		{"infer", "bare", false, []string{`caller "bare" lacks Inference`, "provider org.probe.lacking (trust System) does not hold Inference"}},
		{"read-any", "bare", false, []string{"provider org.probe.lacking (trust System) does not hold ReadSpace", "nor does the caller hold any ReadSpace grant (agents.bare.grants)"}},
		{"write-x", "bare", true, []string{"provider org.probe.relay", "provider org.probe.lacking (trust System) does not hold WriteSpace(x)"}},
		{"read-any", "bare", true, []string{"provider org.probe.lacking (trust System) does not hold ReadSpace", `agent "bare", which started the chain of calls, holds none`}},
	} {
		tool, params := c.tool, any(map[string]any{})
		if c.nested {
			tool, params = "relay", map[string]any{"tool": c.tool, "params": map[string]any{}}
		}
		_, err := te.call(c.caller, tool, params)
		var terr *abi.ToolError
		if !errors.As(err, &terr) || terr.Code != abi.CapabilityDenied {
			t.Errorf("%s (nested %v): %v, want CapabilityDenied", c.tool, c.nested, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(terr.Message, w) {
				t.Errorf("%s (nested %v): %q does not say %q", c.tool, c.nested, terr.Message, w)
			}
		}
	}
}
