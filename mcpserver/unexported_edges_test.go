package mcpserver

import (
	"context"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCallOfUnexportedToolSaysNotExported: a tools/call of a tool the
// host has but does not export over MCP (neither mcp_exportable nor
// matched by mcp.export) was answered `unknown tool "hidden"`, the
// go-sdk's words for a name nothing holds, while `aios-host list` shows
// the tool: nothing said why or what to set. The answer keeps that
// prefix (the bridge reads it) and says the tool is not exported and how
// to export it; a name the host does not know is answered as before.
func TestCallOfUnexportedToolSaysNotExported(t *testing.T) {
	_, s := newTestHost(t, exportCfg)
	cs := connectInMemory(t, s, nil)
	_, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "hidden", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("calling the unexported tool hidden succeeded")
	}
	for _, want := range []string{`unknown tool "hidden"`, "not exported over MCP", "mcp_exportable", "mcp.export"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("tools/call of hidden: %v; want it to say %q", err, want)
		}
	}
	_, err = cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) || strings.Contains(err.Error(), "not exported") {
		t.Fatalf("tools/call of nope, which no provider has: %v; want the plain unknown tool error", err)
	}
}
