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

// TestHTTPStreamEndedBeforeAnswer: a URL server whose response stream to
// a tools/call ended before it carried the answer (the server's process
// ended mid-call, as a TypeScript SDK server killed during a call does,
// or a proxy cut the stream) failed the call ProviderError "calling
// "tools/call": request terminated without response", the go-sdk's words,
// as if the tool had reported an error. It is Unavailable naming the
// server and the tool and saying the server may have run it in part, and
// the next call is served.
func TestHTTPStreamEndedBeforeAnswer(t *testing.T) {
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
				// A stream begun and ended without an event.
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
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
	cut.Store(true)
	_, err = call(t, p, "mcp-r-search", nil, 20*time.Second)
	if abi.CodeOf(err) != abi.Unavailable {
		t.Errorf("want Unavailable, got %v", err)
	}
	if err != nil {
		msg := err.Error()
		for _, want := range []string{"mcp server r", "mcp-r-search", "before it answered", "may have run"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q does not say %q", msg, want)
			}
		}
	}
	cut.Store(false)
	if _, err := call(t, p, "mcp-r-search", nil, 20*time.Second); err != nil {
		t.Errorf("after the cut stream: %v", err)
	}
}
