package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/host"
)

// TestToolsCallMetaDepth: a tools/call that came through another aios
// host's MCP bridge started at depth 0 here, whatever its depth there, so
// two hosts serving tools through each other (a tool of each calling the
// other's over MCP) called each other until the deadline, each hop a
// fresh chain, and the caller got Timeout. The depth given in
// _meta["org.aios/depth"] (the bridge sends its call's depth + 1, as
// JSON-RPC's tools/call depth) is the call's: past limits.max_call_depth
// it is DepthExceeded, and a depth that is not a whole number from 0 is
// InvalidParams naming the key.
func TestToolsCallMetaDepth(t *testing.T) {
	_, s := newTestHost(t, "limits: {max_call_depth: 2}\n")
	cs := connectInMemory(t, s, nil)
	codeOf := func(meta mcpsdk.Meta) (string, string) {
		t.Helper()
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Meta: meta, Name: "echo", Arguments: map[string]any{"value": 1}})
		if err != nil {
			t.Fatalf("depth %v: %v", meta, err)
		}
		if !r.IsError {
			return "", ""
		}
		e, _ := r.Meta[MetaError].(map[string]any)
		code, _ := e["code"].(string)
		msg, _ := e["message"].(string)
		return code, msg
	}
	for _, d := range []any{nil, 0, 2} {
		var meta mcpsdk.Meta
		if d != nil {
			meta = mcpsdk.Meta{MetaDepth: d}
		}
		if code, msg := codeOf(meta); code != "" {
			t.Errorf("depth %v: %s: %s; want the call to run", d, code, msg)
		}
	}
	if code, msg := codeOf(mcpsdk.Meta{MetaDepth: 3}); code != "DepthExceeded" || !strings.Contains(msg, "limits.max_call_depth") {
		t.Errorf("depth 3 with max_call_depth 2: %s: %s; want DepthExceeded", code, msg)
	}
	for _, bad := range []any{-1, 1.5, "2", true} {
		if code, msg := codeOf(mcpsdk.Meta{MetaDepth: bad}); code != "InvalidParams" || !strings.Contains(msg, MetaDepth) {
			t.Errorf("depth %#v: %s: %s; want InvalidParams naming %s", bad, code, msg, MetaDepth)
		}
	}
}

// TestToolsCallMetaParentID: a tools/call that came through another aios
// host's MCP bridge was recorded with no parent, so its record could not
// be joined to the call that made it in the other host's audit log. The
// id given in _meta["org.aios/parent_id"] is recorded as the call's
// parent, "client:<id>", as JSON-RPC's tools/call parent_id is: never as
// a call of this host.
func TestToolsCallMetaParentID(t *testing.T) {
	h, s := newTestHost(t, "")
	parents := make(chan string, 4)
	defer h.OnCall(func(st host.CallStats) { parents <- st.ParentID })()
	cs := connectInMemory(t, s, nil)
	for _, tc := range []struct {
		meta mcpsdk.Meta
		want string
	}{{mcpsdk.Meta{MetaParentID: "mxa-42"}, "client:mxa-42"}, {nil, ""}} {
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Meta: tc.meta, Name: "echo", Arguments: map[string]any{"value": 1}})
		if err != nil || r.IsError {
			t.Fatalf("%v: %v %+v", tc.meta, err, r)
		}
		select {
		case p := <-parents:
			if p != tc.want {
				t.Errorf("_meta %v: the call's parent is %q; want %q", tc.meta, p, tc.want)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no call observed")
		}
	}
}
