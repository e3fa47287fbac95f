package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// TestBridgeSendsDepth: the bridge called a server's tool without saying
// how deep its call was nested, so an aios host behind the server ran it
// at depth 0, and two hosts serving tools through each other over MCP
// called each other until the deadline. The bridge sends its call's
// depth + 1 in _meta["org.aios/depth"] (mcpserver.MetaDepth), as a
// remote adapter sends it in JSON-RPC's tools/call.
func TestBridgeSendsDepth(t *testing.T) {
	got := make(chan any, 1)
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "probe", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			got <- req.Params.Meta[metaDepth]
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil
		})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: srv.URL, ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.remote")
	for _, depth := range []int{0, 3} {
		c := &abi.ToolCall{ID: "t", Tool: "mcp-remote-probe", Params: map[string]any{}, Depth: depth, Deadline: time.Now().Add(20 * time.Second)}
		if _, err := p.Call(context.Background(), c, nil); err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if d := <-got; d != float64(depth+1) {
			t.Errorf("a call at depth %d: the server got _meta[%q] = %#v; want %d", depth, metaDepth, d, depth+1)
		}
	}
}

// TestBridgeSendsParentID: the bridge called a server's tool without its
// call's id, so the record of the call an aios host behind the server ran
// had no parent: the two audit logs could not be joined, where a remote
// adapter's JSON-RPC tools/call gives its parent_id. The bridge sends its
// call's id in _meta["org.aios/parent_id"] (mcpserver.MetaParentID).
func TestBridgeSendsParentID(t *testing.T) {
	got := make(chan any, 1)
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "probe", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			got <- req.Params.Meta[metaParentID]
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil
		})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: srv.URL, ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	c := &abi.ToolCall{ID: "mxa-42", Tool: "mcp-remote-probe", Params: map[string]any{}, Deadline: time.Now().Add(20 * time.Second)}
	if _, err := rec.provider("org.aios.mcp.remote").Call(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	if id := <-got; id != "mxa-42" {
		t.Errorf("the server got _meta[%q] = %#v; want the call's id %q", metaParentID, id, "mxa-42")
	}
}

// TestBridgeSendsTimeout: the bridge called a server's tool without what
// was left of its call's deadline, so an aios host behind the server ran
// it under its own default deadline (30 s): a call given minutes here
// failed there after 30 s. The bridge sends the milliseconds left, rounded
// up, in _meta["org.aios/timeout_ms"] (mcpserver.MetaTimeoutMS), as a
// remote adapter sends JSON-RPC's timeout_ms.
func TestBridgeSendsTimeout(t *testing.T) {
	got := make(chan any, 1)
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "probe", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			got <- req.Params.Meta[metaTimeoutMS]
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil
		})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: srv.URL, ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	c := &abi.ToolCall{ID: "t", Tool: "mcp-remote-probe", Params: map[string]any{}, Deadline: time.Now().Add(2 * time.Minute)}
	if _, err := rec.provider("org.aios.mcp.remote").Call(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	if ms, _ := (<-got).(float64); ms <= 60_000 || ms > 120_000 {
		t.Errorf("a call with 2 min left: the server got _meta[%q] = %v; want the milliseconds left", metaTimeoutMS, ms)
	}
}
