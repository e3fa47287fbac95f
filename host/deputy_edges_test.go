package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/native"
)

// deputyJS is a JS provider holding WriteSpace(x): its relay calls any
// tool with ctx.callTool, its write-x writes to space x itself.
const deputyJS = `
aios.provider({ id: 'org.probe.jsdeputy', capabilities: ['CallTool(*)', 'WriteSpace(x)'] });
aios.registerTool({ name: 'js-relay', parameters: { type: 'object', properties: { tool: { type: 'string' }, params: {} }, required: ['tool'] } },
  async (p, ctx) => ({ result: await ctx.callTool(p.tool, p.params || {}) }));
aios.registerTool({ name: 'js-write-x', parameters: { type: 'object' } },
  async (p, ctx) => ({ id: await ctx.spaces.write('x', 'from js') }));
`

// TestConfusedDeputy: an agent without WriteSpace(x) calling a tool
// whose provider holds WriteSpace(x) gets nothing written to x, whatever
// the path: the deputy writing itself (check 2), the deputy calling a tool
// that requires WriteSpace(x) (check 1 of the nested call, also two
// deputies deep, also when the requirement is spelt "WriteSpace( x )")
// or one that writes to x (check 2 under the intersected grants), from a
// native deputy and from a JS one (ctx.callTool, ctx.spaces.write). An
// agent holding WriteSpace(x) writes through the same paths. No defect.
func TestConfusedDeputy(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["nowrite"] = config.Agent{Grants: []string{"CallTool(*)", "WriteSpace(y)", "ReadSpace(*)"}}
		c.Agents["writer"] = config.Agent{Grants: []string{"CallTool(*)", "WriteSpace(x)"}}
	})
	deputy := relayProvider("org.probe.deputy", "CallTool(*)", "WriteSpace(x)")
	deputy.MustRegister(abi.ToolDef{Name: "write-x", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			o, err := env.SpaceWrite(ctx, "x", []byte("from deputy"))
			if err != nil {
				return nil, err
			}
			return o.ID, nil
		})
	addSystem(t, te, deputy)
	target := native.New(abi.ProviderInfo{ID: "org.probe.target", Capabilities: []string{"WriteSpace(*)"}})
	for _, spelling := range []string{"WriteSpace(x)", "WriteSpace( x )"} {
		name := "needs-x"
		if spelling != "WriteSpace(x)" {
			name = "needs-x-spaced"
		}
		target.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0", CapabilityRequired: []string{spelling}},
			func(ctx context.Context, _ any, env abi.Env) (any, error) {
				o, err := env.SpaceWrite(ctx, "x", []byte("from "+name))
				if err != nil {
					return nil, err
				}
				return o.ID, nil
			})
	}
	addSystem(t, te, target)
	rt := js.New(js.Options{Isolation: js.IsolationInProcess})
	t.Cleanup(func() { _ = rt.Close() })
	for _, l := range rt.Loaders() {
		if l.Runtime() == abi.RuntimeJS {
			if err := te.h.AddLoader(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := filepath.Join(t.TempDir(), "deputy.js")
	if err := os.WriteFile(src, []byte(deputyJS), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := te.h.LoadFile(context.Background(), src, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}

	relay := func(via, tool string, params any) map[string]any {
		return map[string]any{"tool": via, "params": map[string]any{"tool": tool, "params": params}}
	}
	paths := []struct {
		name   string
		tool   string
		params any
	}{
		{"deputy writes x itself", "write-x", map[string]any{}},
		{"deputy → needs-x", "relay", map[string]any{"tool": "needs-x"}},
		{"deputy → needs-x (spelt with spaces)", "relay", map[string]any{"tool": "needs-x-spaced"}},
		{"deputy → write x", "relay", map[string]any{"tool": "write", "params": map[string]any{"space": "x", "data": "d"}}},
		{"deputy → deputy → needs-x", "relay", relay("relay", "needs-x", map[string]any{})},
		{"deputy → deputy writes x", "relay", map[string]any{"tool": "write-x"}},
		{"js deputy writes x itself", "js-write-x", map[string]any{}},
		{"js deputy → needs-x", "js-relay", map[string]any{"tool": "needs-x"}},
		{"js deputy → write x", "js-relay", map[string]any{"tool": "write", "params": map[string]any{"space": "x", "data": "d"}}},
		{"deputy → js deputy → needs-x", "relay", relay("js-relay", "needs-x", map[string]any{})},
		{"js deputy → deputy writes x", "js-relay", map[string]any{"tool": "write-x"}},
	}
	for _, p := range paths {
		_, err := te.call("nowrite", p.tool, p.params)
		var terr *abi.ToolError
		if !errors.As(err, &terr) || terr.Code != abi.CapabilityDenied || !strings.Contains(terr.Message, "WriteSpace(x)") {
			t.Errorf("nowrite: %s: %v, want CapabilityDenied naming WriteSpace(x)", p.name, err)
		}
	}
	if ids, err := te.spaces.List("x"); err == nil && len(ids) > 0 {
		t.Fatalf("space x holds %d objects after the refused calls", len(ids))
	}
	for _, p := range paths {
		if _, err := te.call("writer", p.tool, p.params); err != nil {
			t.Errorf("writer: %s: %v", p.name, err)
		}
	}
}
