package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestURLQuerySecretNotInCallError: a hosted MCP server's URL often
// carries its API key in the query (…/mcp?api_key=…), which logs and the
// provider's description never show (displayURL). A call whose
// connection the server closed failed with the HTTP client's error, which
// quotes the request's URL whole: the key reached the calling agent and
// the audit record's error. It is taken out, as a bearer token is.
func TestURLQuerySecretNotInCallError(t *testing.T) {
	const secret = "sk-live-QUERYSECRET-0123456789"
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "search"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil, nil
	})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	var cut atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) && cut.Load() {
				// The connection closed with no answer at all.
				if hj, ok := w.(http.Hijacker); ok {
					if c, _, err := hj.Hijack(); err == nil {
						_ = c.Close()
						return
					}
				}
				panic(http.ErrAbortHandler)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp?api_key=" + secret, ConnectTimeout: 5 * time.Second, ReconnectMax: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.r")
	cut.Store(true)
	_, err = call(t, p, "mcp-r-search", nil, 20*time.Second)
	if err == nil {
		t.Fatal("a call whose connection was closed succeeded")
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "QUERYSECRET") {
		t.Fatalf("the URL's key reached the caller: %v", err)
	}
	if !strings.Contains(err.Error(), "mcp server r") {
		t.Errorf("%v does not name the server", err)
	}
	// The server gone: the client's error names the URL it dialled.
	srv.CloseClientConnections()
	srv.Listener.Close()
	for i := 0; i < 3; i++ {
		_, err = call(t, p, "mcp-r-search", nil, 20*time.Second)
		if err == nil {
			t.Fatal("a call of a server that is gone succeeded")
		}
		if strings.Contains(err.Error(), "QUERYSECRET") {
			t.Fatalf("the URL's key reached the caller: %v", err)
		}
	}
}
