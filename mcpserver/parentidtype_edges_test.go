package mcpserver

import (
	"context"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsCallMetaParentIDNotAString: a _meta["org.aios/parent_id"]
// that is not a string (a client giving its numeric request id) was
// dropped without a word, so the call's audit record had no parent, while
// JSON-RPC's tools/call refuses a parent_id that is not a string and
// _meta's depth and timeout_ms are refused when malformed. It is
// InvalidParams naming the key, and the tool is not run.
func TestToolsCallMetaParentIDNotAString(t *testing.T) {
	_, s := newTestHost(t, "")
	cs := connectInMemory(t, s, nil)
	for _, bad := range []any{5, true, map[string]any{"id": "x"}} {
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Meta: mcpsdk.Meta{MetaParentID: bad}, Name: "echo", Arguments: map[string]any{"value": 1}})
		if err != nil {
			t.Fatalf("%v: %v", bad, err)
		}
		e, _ := r.Meta[MetaError].(map[string]any)
		if msg, _ := e["message"].(string); !r.IsError || e["code"] != "InvalidParams" || !strings.Contains(msg, MetaParentID) {
			t.Errorf("parent_id %#v: %+v %+v; want InvalidParams naming %s", bad, r.Content, e, MetaParentID)
		}
	}
}
