package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// TestOAuthTokenNotInErrors: a server reached with an OAuth access token
// (mcp.servers.<name>.oauth) that quotes it in a failed call ("bad
// credentials tok-1", an echo of the request) had it reach the tool's
// caller and the audit record's error: only a configured token or
// token_env was taken out, and with oauth there is none. The access
// tokens the bridge sent are taken out too.
func TestOAuthTokenNotInErrors(t *testing.T) {
	a := newAS()
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
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	self := srv.URL
	a.serveMetadata(mux, &self)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": self + "/mcp", "authorization_servers": []string{self}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !a.valid(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+self+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"echoer": {URL: self + "/mcp", ConnectTimeout: 10 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret"}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	p := rec.provider("org.aios.mcp.echoer")
	for round := range 2 {
		for _, tool := range []string{"mcp-echoer-fails", "mcp-echoer-errs"} {
			_, err := call(t, p, tool, map[string]any{}, 10*time.Second)
			var te *abi.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("%s: %v, want a ToolError", tool, err)
			}
			tok := fmt.Sprintf("tok-%d", a.tokens())
			if strings.Contains(fmt.Sprint(te.Message, te.Data), tok) {
				t.Errorf("%s (round %d): the bridge's OAuth access token %s reaches the caller: %s %v", tool, round, tok, te.Message, te.Data)
			}
			if !strings.Contains(te.Message, "[redacted: mcp.servers.echoer oauth access token]") {
				t.Errorf("%s (round %d): %q does not say what was taken out", tool, round, te.Message)
			}
		}
		a.revokeAll() // the next round's calls get (and quote) a new token
	}
}
