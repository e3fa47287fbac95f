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

	"github.com/aios-host/aios-host/abi"
)

// TestHTTPServerErrorStatusSaid: a URL server answering a tools/call
// with 500, 502, 503, 504 or 429 (a crashed handler, a proxy before a
// server that is down, a rate limit) failed the call with "mcp server r:
// mcp-r-search: rejected by transport", the go-sdk's wrapper of a
// transient HTTP failure, saying neither that the server answered HTTP
// nor which status. The error names the status; 502, 503 and 504 are
// Unavailable, 429 RateLimited, 500 ProviderError.
func TestHTTPServerErrorStatusSaid(t *testing.T) {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "search"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil, nil
	})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, &mcpsdk.StreamableHTTPOptions{JSONResponse: true})
	var status atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) && status.Load() != 0 {
				http.Error(w, "upstream is down", int(status.Load()))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second, ReconnectMax: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.r")
	codes := map[int]abi.ErrorCode{http.StatusInternalServerError: abi.ProviderError,
		http.StatusServiceUnavailable: abi.Unavailable, http.StatusTooManyRequests: abi.RateLimited}
	for st, code := range codes {
		status.Store(int32(st))
		_, err := call(t, p, "mcp-r-search", nil, 10*time.Second)
		if err == nil {
			t.Fatalf("%d: no error", st)
		}
		msg := err.Error()
		for _, want := range []string{"mcp server r", "mcp-r-search", http.StatusText(st)} {
			if !strings.Contains(msg, want) {
				t.Errorf("%d: %q does not say %q", st, msg, want)
			}
		}
		if abi.CodeOf(err) != code {
			t.Errorf("%d: want %s, got %v", st, code, err)
		}
	}
	status.Store(0)
	if _, err := call(t, p, "mcp-r-search", nil, 10*time.Second); err != nil {
		t.Errorf("after the failures: %v", err)
	}
}

// TestHTTPServerGoneSaysUnreachable: a URL server that went away after
// the bridge connected (its process stopped, the network down) failed
// each call ProviderError "rejected by transport", where a server that is
// unreachable answers Unavailable. The error says the request did not
// reach the server and why, without the URL's query (it may hold a key).
func TestHTTPServerGoneSaysUnreachable(t *testing.T) {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "1"}, nil)
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "search"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil, nil
	})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, &mcpsdk.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp?key=sekrit", ConnectTimeout: 5 * time.Second, ReconnectMax: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener.Close()
	srv.CloseClientConnections()
	_, err = call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 10*time.Second)
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("want Unavailable, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"mcp server r", "mcp-r-search", "did not reach the server"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "sekrit") || strings.Contains(msg, "rejected by transport") {
		t.Errorf("%q", msg)
	}
}
