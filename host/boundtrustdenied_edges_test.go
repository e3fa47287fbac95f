package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestBoundTrustNotAppliedSaid: a provider whose providers.<id>.trust is
// bound to another source (providers.<id>.source) keeps its own level,
// and a host call its level's caps refuse was told to "vouch for … its id
// (providers.<id>.trust)", which the config does: the operator was sent to
// the setting already made. The refusal says the level is not applied,
// naming the bound source and the provider's; a level that would not
// allow the capability either, or no override, keeps the usual hint.
func TestBoundTrustNotAppliedSaid(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Providers = map[string]config.ProviderOverride{
			"org.probe.bound": {Trust: "Verified", Source: "/plugins/vendor"},
			"org.probe.low":   {Trust: "Untrusted", Source: "/plugins/vendor"},
		}
	})
	id, err := te.spaces.Put("source", []byte("src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range []string{"org.probe.bound", "org.probe.low", "org.probe.plain"} {
		p := native.New(abi.ProviderInfo{ID: pid, Capabilities: []string{"ReadSpace(source)"}})
		name := "read-" + strings.TrimPrefix(pid, "org.probe.")
		p.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
			o, err := env.SpaceRead(ctx, "source", id)
			return string(o.Data), err
		})
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "/plugins/stray/" + name + ".js", Trust: abi.Untrusted}); err != nil {
			t.Fatal(err)
		}
		_, err := te.call("alice", name, nil)
		if abi.CodeOf(err) != abi.CapabilityDenied {
			t.Fatalf("%s: %v, want CapabilityDenied", name, err)
		}
		said := strings.Contains(err.Error(), `bound to providers.`+pid+`.source "/plugins/vendor"`) &&
			strings.Contains(err.Error(), `loaded from "/plugins/stray/`+name+`.js"`)
		if want := pid == "org.probe.bound"; said != want {
			t.Errorf("%s: %v; the bound source said: %v, want %v", name, err, said, want)
		}
	}
}
