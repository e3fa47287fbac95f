package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer is a go-sdk streamable-HTTP MCP server on loopback that
// wants "Authorization: Bearer secret".
func httpServer(t *testing.T) (*mcpsdk.Server, string) {
	t.Helper()
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "2.0.0"}, nil)
	type in struct {
		Q string `json:"q"`
	}
	type out struct {
		Hits int `json:"hits"`
	}
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "search", Description: "search"}, func(_ context.Context, _ *mcpsdk.CallToolRequest, a in) (*mcpsdk.CallToolResult, out, error) {
		return nil, out{Hits: len(a.Q)}, nil
	})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL + "/mcp"
}

func TestBridgeHTTPServer(t *testing.T) {
	remote, url := httpServer(t)
	b, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: url, Token: "secret", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	reg := rec.provider("org.aios.mcp.remote").Describe()
	if len(reg.Tools) != 1 || reg.Tools[0].Name != "mcp-remote-search" {
		t.Fatalf("tools = %+v", reg.Tools)
	}
	d := reg.Tools[0]
	if len(d.CapabilityRequired) != 1 || d.CapabilityRequired[0] != "Network(127.0.0.1)" || d.Returns == nil {
		t.Fatalf("def = %+v", d)
	}
	if got := reg.Provider.Capabilities; len(got) != 1 || got[0] != "Network(127.0.0.1)" {
		t.Errorf("provider capabilities = %v", got)
	}
	v, err := call(t, rec.provider("org.aios.mcp.remote"), "mcp-remote-search", map[string]any{"q": "abcd"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := v.(map[string]any); m["hits"] != int64(4) {
		t.Fatalf("result = %#v", v)
	}
	// A tool added on the server appears after Refresh (or its list_changed).
	remote.AddTool(&mcpsdk.Tool{Name: "more", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{}, nil
		})
	if err := b.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rec.toolNames("org.aios.mcp.remote"); !contains(got, "mcp-remote-more") {
		t.Fatalf("after Refresh: %v", got)
	}
}

func TestBridgeHTTPWrongToken(t *testing.T) {
	_, url := httpServer(t)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"remote": {URL: url, Token: "wrong", ConnectTimeout: 3 * time.Second}})
	if err == nil || !strings.Contains(err.Error(), "mcp server remote") {
		t.Fatalf("Start error = %v", err)
	}
	if got := rec.toolNames("org.aios.mcp.remote"); len(got) != 0 {
		t.Fatalf("tools of a refused server: %v", got)
	}
}
