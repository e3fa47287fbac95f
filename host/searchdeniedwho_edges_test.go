package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestSearchDeniedNamesWho: a nested read by id alone refused
// because the agent behind the chain holds no ReadSpace said only 'no
// space is readable by both caller "org.probe.relay" and provider …: the
// caller holds no ReadSpace grant', though the relay holds ReadSpace(*).
// The refusal names the agent, or a provider on the way, that holds none.
func TestSearchDeniedNamesWho(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["noread"] = config.Agent{Grants: []string{"CallTool(*)"}}
		c.Agents["reader"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(*)"}}
	})
	addSystem(t, te, relayProvider("org.probe.relay", "CallTool(*)", "ReadSpace(*)"))
	blind := native.New(abi.ProviderInfo{ID: "org.probe.blind", Capabilities: []string{"CallTool(*)"}})
	blind.MustRegister(abi.ToolDef{Name: "blind-relay", Version: "1.0.0", Parameters: obj(map[string]any{"tool": str, "params": map[string]any{}}, "tool")},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			m := params.(map[string]any)
			return env.CallTool(ctx, m["tool"].(string), "", m["params"])
		})
	addSystem(t, te, blind)
	id, err := te.spaces.Put("docs", []byte("d"))
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]any{"tool": "read", "params": map[string]any{"id": id}}
	_, err = te.call("noread", "relay", read)
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), `agent "noread"`) || !strings.Contains(err.Error(), "agents.noread.grants") {
		t.Errorf("noread → relay → read by id: %v, want CapabilityDenied naming agent noread", err)
	}
	_, err = te.call("reader", "blind-relay", map[string]any{"tool": "relay", "params": read})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "provider org.probe.blind holds none") || strings.Contains(err.Error(), `agent "reader"`) {
		t.Errorf("reader → blind-relay → relay → read by id: %v, want CapabilityDenied naming org.probe.blind", err)
	}
	v, err := te.call("reader", "relay", read)
	if err != nil || v.(map[string]any)["data"] != "d" {
		t.Errorf("reader → relay → read by id: %v %v", v, err)
	}
}
