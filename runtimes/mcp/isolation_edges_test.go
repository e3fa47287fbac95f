package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A URL server that quotes the bridge's bearer token in a failed call (a
// proxy's "invalid token …", a server echoing its request) had the token
// handed to the calling agent and written into the audit record's error,
// as the inference backend's key is not (pipeline.md "Inference"). The
// bridge now replaces it, as inference does.
func TestBridgeTokenNotInErrors(t *testing.T) {
	const tok = "br1dge-t0ken-xyz"
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "echoer", Version: "1.0.0"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "fails", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{&mcpsdk.TextContent{
				Text: "upstream refused the request (" + req.Extra.Header.Get("Authorization") + ")"}}}, nil
		})
	s.AddTool(&mcpsdk.Tool{Name: "errs", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return nil, fmt.Errorf("bad credentials %s", strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer "))
		})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("PROBE_BRIDGE_TOKEN", tok)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"echoer": {URL: srv.URL + "/mcp", TokenEnv: "PROBE_BRIDGE_TOKEN", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"mcp-echoer-fails", "mcp-echoer-errs"} {
		_, err := call(t, rec.provider("org.aios.mcp.echoer"), tool, map[string]any{}, 5*time.Second)
		var te *abi.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a ToolError", tool, err)
		}
		if strings.Contains(fmt.Sprint(te.Message, te.Data), tok) {
			t.Errorf("%s: the bridge's token reaches the caller: %s %v", tool, te.Message, te.Data)
		}
		if !strings.Contains(te.Message, "[redacted: mcp.servers.echoer token]") {
			t.Errorf("%s: %q does not say what was taken out", tool, te.Message)
		}
	}
}
