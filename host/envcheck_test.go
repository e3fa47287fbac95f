package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestEnvCheck: the host's Env says whether a host service would be
// allowed (the caller's effective grants and the provider's), as the
// service itself would decide, without using it.
func TestEnvCheck(t *testing.T) {
	te := newTestHost(t, func(cfg *config.Config) { cfg.Agents["noinfer"] = config.Agent{Grants: []string{"CallTool(*)"}} })
	for _, c := range []struct{ id, caps string }{{"org.test.checker", "Inference"}, {"org.test.nochecker", ""}} {
		p := native.New(abi.ProviderInfo{ID: c.id, Capabilities: strings.Fields(c.caps)})
		p.MustRegister(abi.ToolDef{Name: strings.TrimPrefix(c.id, "org.test."), Version: "1.0.0"},
			func(ctx context.Context, _ any, env abi.Env) (any, error) {
				ch, ok := env.(abi.Checker)
				if !ok {
					return "no checker", nil
				}
				if err := ch.Check(abi.Capability{Kind: abi.CapInference}); err != nil {
					return "denied: " + err.Error(), nil
				}
				return "allowed", nil
			})
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ caller, tool, want string }{
		{"alice", "checker", "allowed"},
		{"noinfer", "checker", `caller "noinfer" lacks Inference`},
		{"alice", "nochecker", "provider org.test.nochecker (trust System) does not hold Inference"},
	} {
		v, err := te.call(c.caller, c.tool, nil)
		if err != nil {
			t.Fatalf("%s calls %s: %v", c.caller, c.tool, err)
		}
		if s, _ := v.(string); !strings.Contains(s, c.want) || c.want != "allowed" && !strings.HasPrefix(s, "denied: ") {
			t.Errorf("%s calls %s: %q, want %q", c.caller, c.tool, s, c.want)
		}
	}
	// Check agrees with the service: Complete is refused for "noinfer".
	if _, err := te.call("noinfer", "complete", nil); abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "lacks Inference") {
		t.Errorf("noinfer calls complete: %v, want CapabilityDenied for Inference", err)
	}
}
