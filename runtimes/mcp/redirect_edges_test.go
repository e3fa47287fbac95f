package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedirectTurnsPostIntoGet: a URL server whose /mcp redirects
// to /mcp/ (a trailing-slash redirect) with 301, 302 or 303, which HTTP
// clients follow with a GET without the message, failed to connect with
// a bare "Bad Request" (the server's answer to that GET); the error says
// that the POST was redirected and to what URL, to configure instead.
// 307 and 308 keep the POST and are followed.
func TestRedirectTurnsPostIntoGet(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		s := edgeHTTPServer()
		h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
		mux := http.NewServeMux()
		mux.Handle("/mcp/", h)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/mcp/", code)
		})
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close) // after the bridge's Close
		_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second}})
		t.Logf("%d: Start: %v", code, err)
		if code == 307 || code == 308 {
			if err != nil {
				t.Errorf("%d: %v", code, err)
			} else if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 3*time.Second); err != nil {
				t.Errorf("%d: call: %v", code, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(code)) || !strings.Contains(err.Error(), srv.URL+"/mcp/") || !strings.Contains(err.Error(), "GET") {
			t.Errorf("%d: Start error = %v; want the redirect, its status and where it goes", code, err)
		}
	}
}
