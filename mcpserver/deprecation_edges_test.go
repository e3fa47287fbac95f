package mcpserver

import (
	"context"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// An MCP client calling a deprecated tool got its result alone: the
// tool's _meta in tools/list says org.aios/deprecated, but nothing of the
// call said since when, why or what replaces it, though the host returns
// the deprecation to its callers (docs/registry.md; tools/call over
// JSON-RPC answers it). The result's _meta carries org.aios/deprecation.
func TestMCPCallSaysDeprecated(t *testing.T) {
	h, s := newTestHost(t, exportCfg)
	p := native.New(abi.ProviderInfo{ID: "org.test.old", Runtime: abi.RuntimeNative})
	p.MustRegister(abi.ToolDef{Name: "old-echo", MCPExportable: true, Parameters: map[string]any{"type": "object"},
		Deprecation: &abi.Deprecation{Since: "1.0.0", Message: "it echoes badly", Replacement: "echo"}},
		func(context.Context, any, abi.Env) (any, error) { return "old", nil })
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, s, nil)
	ctx := context.Background()
	call := func(name string, args any) *mcpsdk.CallToolResult {
		t.Helper()
		var r *mcpsdk.CallToolResult
		var err error
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: name, Arguments: args})
			if err == nil && !r.IsError || time.Now().After(deadline) {
				break
			}
		}
		if err != nil || r.IsError {
			t.Fatalf("call %s: %v %+v", name, err, r)
		}
		return r
	}
	r := call("old-echo", map[string]any{})
	d, ok := r.Meta["org.aios/deprecation"].(map[string]any)
	if !ok || d["since"] != "1.0.0" || d["replacement"] != "echo" || d["message"] != "it echoes badly" {
		t.Fatalf("call of a deprecated tool: _meta %v, want org.aios/deprecation {since 1.0.0, message, replacement echo}", r.Meta)
	}
	if r := call("echo", map[string]any{"value": 1}); r.Meta["org.aios/deprecation"] != nil {
		t.Fatalf("call of echo: _meta %v", r.Meta)
	}
}
