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
)

// TestJSNestedRateLimited: a JS tool's ctx.callTool refused by the
// nested tool's rate limit reaches the agent as RateLimited with
// data.retry_after_ms and data.limit, whether the tool lets it propagate
// or catches it and reads them; the refused nested call is recorded with
// its outcome and message; and it is not charged to the agent's own
// bucket.
func TestJSNestedRateLimited(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"whoami": {PerSecond: 0.001, Burst: 1}}
		c.Agents["two"] = config.Agent{Grants: []string{"CallTool(*)"}, Rate: &config.Rate{PerSecond: 0.001, Burst: 3}}
	})
	rt := js.New(js.Options{Isolation: js.IsolationInProcess})
	t.Cleanup(func() { _ = rt.Close() })
	for _, l := range rt.Loaders() {
		if l.Runtime() == abi.RuntimeJS {
			if err := te.h.AddLoader(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := filepath.Join(t.TempDir(), "rate.js")
	code := `
aios.provider({ id: 'org.probe.jsrate', capabilities: ['CallTool(*)'] });
aios.registerTool({ name: 'js-call', parameters: { type: 'object' } },
  async (p, ctx) => ({ result: await ctx.callTool('whoami', {}) }));
aios.registerTool({ name: 'js-catch', parameters: { type: 'object' } },
  async (p, ctx) => {
    try { await ctx.callTool('whoami', {}); return { ok: true }; }
    catch (e) { return { code: e.code, retry: e.data && e.data.retry_after_ms, limit: e.data && e.data.limit }; }
  });
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := te.h.LoadFile(context.Background(), src, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("two", "js-call", map[string]any{}); err != nil {
		t.Fatalf("first call: %v", err)
	}
	_, err := te.call("two", "js-call", map[string]any{})
	var terr *abi.ToolError
	if !errors.As(err, &terr) || terr.Code != abi.RateLimited || !strings.Contains(terr.Message, "rate_limits.per_tool") {
		t.Fatalf("second js-call: %v, want RateLimited naming rate_limits.per_tool", err)
	}
	d, _ := terr.Data.(map[string]any)
	if ms, _ := d["retry_after_ms"].(int64); ms <= 0 || d["limit"] != "rate_limits.per_tool.whoami" {
		t.Errorf("second js-call's data = %#v, want retry_after_ms and limit", terr.Data)
	}
	v, err := te.call("two", "js-catch", map[string]any{})
	if err != nil {
		t.Fatalf("js-catch: %v", err)
	}
	m := v.(map[string]any)
	if m["code"] != string(abi.RateLimited) || m["limit"] != "rate_limits.per_tool.whoami" {
		t.Errorf("js-catch saw %v", m)
	}
	if r, _ := m["retry"].(int64); r <= 0 {
		t.Errorf("js-catch saw retry_after_ms %v", m["retry"])
	}
	// Three calls of agent two, its burst: the nested ones took none of it.
	_, err = te.call("two", "js-catch", map[string]any{})
	if abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("fourth call of an agent with a burst of 3: %v, want RateLimited", err)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(te.audit)
	var nested int
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"caller":"org.probe.jsrate"`) && strings.Contains(line, `"outcome":"RateLimited"`) && strings.Contains(line, "rate limit of tool whoami") {
			nested++
		}
	}
	if nested != 2 {
		t.Errorf("%d audit records of a refused nested whoami, want 2:\n%s", nested, data)
	}
}
