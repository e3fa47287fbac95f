package conformance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/mcp"
)

// mcpServerName is the bridge's name of the conformance server: its tools
// are registered as mcp-conformance-<tool>.
const mcpServerName = "conformance"

// The mcp row runs the MCP conformance server (samples/mcp/conformance, a
// go-sdk stdio server built into build/mcp/conformance-server by `make
// samples`) as a child process and imports it through the MCP bridge
// (runtimes/mcp), so that every behaviour goes host → bridge → JSON-RPC
// over stdio → server and back.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeMCP,
		Load:    loadMCPConformance,
		Names: func(tool string) string {
			return mcp.ToolName(mcpServerName, tool)
		},
		NotApplicable: map[string]string{
			"nested-attenuated": "an MCP server cannot call tools of its client: MCP has no server-to-client tool call, so an imported tool has no env.CallTool",
			"nested-values":     "as nested-attenuated: an imported MCP tool has no env.CallTool",
		},
	})
}

// loadMCPConformance starts a bridge with the conformance server and
// returns the provider it publishes, once the server's tools are listed.
func loadMCPConformance(t *testing.T) (abi.Provider, error) {
	bin, err := artifact(t, "mcp/conformance-server")
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		prov abi.Provider
	)
	b, err := mcp.New(mcp.Options{
		Servers: map[string]mcp.ServerConfig{mcpServerName: {
			Command: bin,
			// MCP tools carry no capabilities: the operator's config says
			// what an imported tool requires.
			CapabilityRequired: map[string][]string{"secret": {"ReadSpace(secret)"}},
			ConnectTimeout:     30 * time.Second,
		}},
		Publish: func(_ context.Context, p abi.Provider, _ string) error {
			mu.Lock()
			prov = p
			mu.Unlock()
			return nil
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = b.Close() })
	if err := b.Start(context.Background()); err != nil {
		return nil, err
	}
	mu.Lock()
	p := prov
	mu.Unlock()
	if p == nil {
		return nil, errors.New("the MCP bridge published no provider")
	}
	if n := len(p.Describe().Tools); n != len(contractTools) {
		return nil, fmt.Errorf("the MCP bridge imported %d tools of the conformance server, want %d (status %+v)", n, len(contractTools), b.Status())
	}
	return p, nil
}
