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

// relayProvider serves relay {tool, params}: it calls tool with params
// (a nested call, under the caller's grants ∩ caps).
func relayProvider(id string, caps ...string) *native.Provider {
	p := native.New(abi.ProviderInfo{ID: id, Capabilities: caps})
	p.MustRegister(abi.ToolDef{Name: "relay", Version: "1.0.0", Parameters: obj(map[string]any{"tool": str, "params": map[string]any{}}, "tool")},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			m := params.(map[string]any)
			return env.CallTool(ctx, m["tool"].(string), "", m["params"])
		})
	return p
}

func addSystem(t *testing.T, te *testEnv, p abi.Provider) {
	t.Helper()
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, what string, err error, code abi.ErrorCode) {
	t.Helper()
	var terr *abi.ToolError
	if code == "" {
		if err != nil {
			t.Errorf("%s: %v, want success", what, err)
		}
		return
	}
	if !errors.As(err, &terr) || terr.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// TestGrantPatternWithinPattern: a grant pattern held on one side of
// a nested call and a narrower one on the other (ReadSpace(a*) and
// ReadSpace(ab*)) intersected to nothing, since a pattern was taken to
// cover another only when it was * or the same text: an agent holding
// ReadSpace(a*) calling a tool whose provider holds ReadSpace(ab*) could
// not read space abc in a nested call, though both allow it;
// providers.<id>.grants narrowing a provider's ReadSpace(proj-*) to
// ReadSpace(proj-a*) took it away whole; and a tool requiring
// ReadSpace(docs-*) was refused to a caller holding ReadSpace(d*).
func TestGrantPatternWithinPattern(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["a-star"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(a*)", "ReadSpace(d*)"}}
		c.Agents["a-only"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(a*)"}}
		c.Agents["any"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(*)"}}
		c.Providers = map[string]config.ProviderOverride{"org.probe.narrow": {Grants: []string{"CallTool(*)", "ReadSpace(proj-a*)"}}}
	})
	addSystem(t, te, relayProvider("org.probe.relay", "CallTool(*)", "ReadSpace(ab*)"))
	np := native.New(abi.ProviderInfo{ID: "org.probe.narrow", Capabilities: []string{"CallTool(*)", "ReadSpace(proj-*)"}})
	np.MustRegister(abi.ToolDef{Name: "narrow-read", Version: "1.0.0", Parameters: obj(map[string]any{"space": str, "id": str}, "space", "id")},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			m := params.(map[string]any)
			o, err := env.SpaceRead(ctx, m["space"].(string), m["id"].(string))
			if err != nil {
				return nil, err
			}
			return string(o.Data), nil
		})
	np.MustRegister(abi.ToolDef{Name: "needs-docs", Version: "1.0.0", CapabilityRequired: []string{"ReadSpace(docs-*)"}},
		func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	addSystem(t, te, np)

	ids := map[string]string{}
	for _, sp := range []string{"abc", "ac", "proj-ab", "proj-b"} {
		id, err := te.spaces.Put(sp, []byte("in "+sp))
		if err != nil {
			t.Fatal(err)
		}
		ids[sp] = id
	}
	read := func(sp string) map[string]any {
		return map[string]any{"tool": "read", "params": map[string]any{"space": sp, "id": ids[sp]}}
	}

	v, err := te.call("a-star", "relay", read("abc"))
	wantCode(t, "a-star → relay (ReadSpace(ab*)) → read abc", err, "")
	if err == nil && v.(map[string]any)["data"] != "in abc" {
		t.Errorf("read abc through relay = %v", v)
	}
	// Each side still refuses what it does not hold.
	_, err = te.call("a-star", "relay", read("ac"))
	wantCode(t, "a-star → relay → read ac (the relay lacks it)", err, abi.CapabilityDenied)
	_, err = te.call("any", "relay", read("ac"))
	wantCode(t, "any → relay → read ac (the relay lacks it)", err, abi.CapabilityDenied)

	if g := te.h.Registry().Provider("org.probe.narrow").Grants; !g.Allows(abi.MustCapability("ReadSpace(proj-ab)")) {
		t.Errorf("providers.org.probe.narrow.grants ReadSpace(proj-a*) over its ReadSpace(proj-*): grants %v", g.Strings())
	}
	_, err = te.call("any", "narrow-read", map[string]any{"space": "proj-ab", "id": ids["proj-ab"]})
	wantCode(t, "narrow-read proj-ab", err, "")
	_, err = te.call("any", "narrow-read", map[string]any{"space": "proj-b", "id": ids["proj-b"]})
	wantCode(t, "narrow-read proj-b (narrowed away)", err, abi.CapabilityDenied)

	_, err = te.call("a-star", "needs-docs", nil)
	wantCode(t, "needs-docs (ReadSpace(docs-*)) by a holder of ReadSpace(d*)", err, "")
	_, err = te.call("a-only", "needs-docs", nil)
	if err == nil || !strings.Contains(err.Error(), "ReadSpace(docs-*)") {
		t.Errorf("needs-docs by a holder of ReadSpace(a*) only: %v, want CapabilityDenied naming ReadSpace(docs-*)", err)
	}
}
