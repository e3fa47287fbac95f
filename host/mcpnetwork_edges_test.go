package host

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestMCPProviderNetworkNotWarned: the MCP bridge's provider of a URL
// server says where its tools reach, Network(host), and is Untrusted,
// whose caps never hold Network. Each registration of it (at start, and
// at every change of the server's tool list) logged "provider capabilities
// reduced by trust policy … dropped=[Network(host)]" with the hint "sign
// its Adapter Card, or vouch for its plugin folder … or its id", though
// the bridge's own connection needs no grant (README: the callers of its
// tools need Network(host)) and an MCP server has no card or folder: the
// hint sent the operator to raise an untrusted server's trust level for
// nothing (found by p180). That drop is not warned of; another
// capability the bridge asks for (Inference, for sampling) still is.
func TestMCPProviderNetworkNotWarned(t *testing.T) {
	var logs syncBuffer
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{"alice": {Grants: []string{"CallTool(*)", "Network(*)"}}}
	h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	p := native.New(abi.ProviderInfo{ID: "org.aios.mcp.remote", Capabilities: []string{"Network(mcp.example.com)"}})
	p.MustRegister(abi.ToolDef{Name: "mcp-remote-search", Version: "1.0.0", CapabilityRequired: []string{"Network(mcp.example.com)"}}, ok)
	if err := h.AddProvider(context.Background(), mcpRuntime{p}, ProviderMeta{Source: "mcp:https://mcp.example.com/mcp", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); strings.Contains(l, "reduced by trust policy") {
		t.Errorf("the MCP bridge's provider's Network was warned of:\n%s", l)
	}
	if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "mcp-remote-search", Params: map[string]any{}}); err != nil {
		t.Fatalf("a caller holding Network(*) was refused: %v", err)
	}
	q := native.New(abi.ProviderInfo{ID: "org.aios.mcp.sampler", Capabilities: []string{"Network(mcp.example.com)", "Inference"}})
	q.MustRegister(abi.ToolDef{Name: "mcp-sampler-ask", Version: "1.0.0"}, ok)
	if err := h.AddProvider(context.Background(), mcpRuntime{q}, ProviderMeta{Source: "mcp:https://mcp.example.com/mcp", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); !strings.Contains(l, "reduced by trust policy") || !strings.Contains(l, "Inference") || strings.Contains(l, "Network(mcp.example.com)") {
		t.Errorf("want Inference's drop warned of, not Network's:\n%s", l)
	}
}

// mcpRuntime is a native provider described as the MCP bridge's (runtime
// mcp), as runtimes/mcp's provider is.
type mcpRuntime struct{ *native.Provider }

func (p mcpRuntime) Describe() *abi.ToolRegister {
	reg := *p.Provider.Describe()
	reg.Provider.Runtime = abi.RuntimeMCP
	return &reg
}
