package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsListCallable: by default (mcp.tools_list: callable) a client's
// tools/list shows the exported tools its agent may call: not one whose
// required capability the agent lacks (needs-space: ReadSpace(secret)),
// nor one above its max_permission (pat-one: critical). Another agent with
// more grants sees them; a call of a tool left out is still refused.
func TestToolsListCallable(t *testing.T) {
	_, s := newTestHost(t, `agents:
  mcp: {grants: ["CallTool(*)"], max_permission: high}
  admin: {grants: ["CallTool(*)", "ReadSpace(*)"], max_permission: critical}
mcp:
  export: ['pat-*']
`)
	names := func(cs *mcpsdk.ClientSession) []string {
		t.Helper()
		var out []string
		for tl, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tl.Name)
		}
		slices.Sort(out)
		return out
	}
	cs := connectInMemory(t, s, nil)
	if got, want := names(cs), []string{"add", "echo", "pat-text"}; !slices.Equal(got, want) {
		t.Fatalf("mcp's tools = %v, want %v", got, want)
	}
	// What aios-host mcp logs at start: each left out, and why.
	hidden := s.Hidden("mcp")
	if len(hidden) != 2 || !strings.HasPrefix(hidden[0], "needs-space: ") || !strings.Contains(hidden[0], "lacks ReadSpace(secret)") ||
		!strings.HasPrefix(hidden[1], "pat-one: ") || !strings.Contains(hidden[1], "permission level critical") {
		t.Fatalf("Hidden(mcp) = %q", hidden)
	}
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "needs-space", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Fatalf("mcp's call of needs-space, not listed: %v %+v", err, res)
	}

	_, s2 := newTestHost(t, `agents:
  admin: {grants: ["CallTool(*)", "ReadSpace(*)"], max_permission: critical}
mcp:
  agent: admin
  export: ['pat-*']
`)
	if got, want := names(connectInMemory(t, s2, nil)), []string{"add", "echo", "needs-space", "pat-one", "pat-text"}; !slices.Equal(got, want) {
		t.Fatalf("admin's tools = %v, want %v", got, want)
	}
}
