package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestNotFoundNamesMountedEndpoints: a path the HTTP server does not
// serve is answered 404 naming the endpoints it does serve; with MCP
// mounted (aios-host run --http serves /mcp and its OAuth metadata) the
// list left /mcp out, so a client that mistyped it (/mcpx, /MCP) was told
// the host serves no MCP at all. The list is the endpoints registered,
// the mounted ones included.
func TestNotFoundNamesMountedEndpoints(t *testing.T) {
	ts := newTestServer(t, "", false)
	s, err := New(Options{Host: ts.h, Discovery: ts.d, Config: ts.h.Config(), Metrics: NewMetrics(),
		Mount: func(mux Mux) {
			ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
			mux.Handle("/mcp", ok)
			mux.Handle("/.well-known/oauth-protected-resource/mcp", ok)
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/mcpx")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m struct {
		Error struct{ Message string } `json:"error"`
	}
	if resp.StatusCode != http.StatusNotFound || json.Unmarshal(body, &m) != nil {
		t.Fatalf("GET /mcpx: %d %s; want 404 with a JSON-RPC error", resp.StatusCode, body)
	}
	for _, want := range []string{"POST /rpc", "GET /health", "/mcp", "/.well-known/oauth-protected-resource/mcp"} {
		if !strings.Contains(m.Error.Message, want) {
			t.Errorf("404 message %q does not name %s, which this server serves", m.Error.Message, want)
		}
	}
	if !strings.Contains(m.Error.Message, "/mcp,") && !strings.HasSuffix(m.Error.Message, "/mcp") {
		t.Errorf("404 message %q does not name /mcp itself", m.Error.Message)
	}
	// The mounted endpoint is served.
	if resp, err := http.Get(srv.URL + "/mcp"); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("GET /mcp: %v %v", resp, err)
	}
}
