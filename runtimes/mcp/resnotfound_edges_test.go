package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// TestResourceNotFoundIsNotFound: MCP (SEP-2164; the go-sdk from 1.7)
// answers a resources/read of a resource that does not exist with -32602
// "Resource not found", where servers before used -32002. The bridge took
// -32602 for the caller's fault: a read tool of a resource that had gone
// from the server, called with {} (it takes no params), answered
// InvalidParams, as did a template's read of a resource that does not
// exist (found by p180). Both are NotFound, as -32002 was, naming the
// server, the tool and the URI; another -32602 stays InvalidParams.
func TestResourceNotFoundIsNotFound(t *testing.T) {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	s.AddResource(&mcpsdk.Resource{Name: "gone", URI: "mem://gone"},
		func(_ context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
			return nil, mcpsdk.ResourceNotFoundError(req.Params.URI)
		})
	s.AddResourceTemplate(&mcpsdk.ResourceTemplate{Name: "note", URITemplate: "mem://notes/{id}"},
		func(_ context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
			if strings.HasSuffix(req.Params.URI, "/bad") {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid note id"}
			}
			return nil, mcpsdk.ResourceNotFoundError(req.Params.URI)
		})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: srv.URL, ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.remote")
	for _, tc := range []struct {
		tool   string
		params map[string]any
		code   abi.ErrorCode
		uri    string
	}{
		{"mcp-remote-read-gone", map[string]any{}, abi.NotFound, "mem://gone"},
		{"mcp-remote-read-note", map[string]any{"id": "missing"}, abi.NotFound, "mem://notes/missing"},
		{"mcp-remote-read-note", map[string]any{"id": "bad"}, abi.InvalidParams, ""},
	} {
		_, err := call(t, p, tc.tool, tc.params, 10*time.Second)
		t.Logf("%s %v: %v", tc.tool, tc.params, err)
		if abi.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.tool) || !strings.Contains(err.Error(), tc.uri) {
			t.Errorf("%s %v: %v; want %s naming the tool and %q", tc.tool, tc.params, err, tc.code, tc.uri)
		}
	}
}
