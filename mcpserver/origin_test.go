package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/host"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOriginInAuditRecords: a call over streamable HTTP is recorded with
// the OAuth token's subject as principal and the MCP session's id; an
// anonymous client's as "anonymous"; a Space read the same way.
func TestOriginInAuditRecords(t *testing.T) {
	is := newIssuer(t)
	cfg := fmt.Sprintf(`agents:
  admin:
    grants: ['CallTool(*)', 'ReadSpace(*)']
  viewer:
    grants: ['CallTool(echo)']
mcp:
  http:
    resource: http://aios.test/mcp
    issuer: %s
    jwks_url: %s
    anonymous_agent: viewer
    scopes:
      - {scope: aios.admin, agent: admin}
`, is.url, is.jwks)
	h, s := newTestHostWith(t, cfg, func(o *host.Options) {
		aw, err := audit.Open(o.Config.AuditPath(), audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o.Audit = aw
	})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close) // after the clients close (cleanups run last first)
	ctx := context.Background()
	connect := func(hc *http.Client) *mcpsdk.ClientSession {
		cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx,
			&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	admin := connect(&http.Client{Transport: bearer{base: http.DefaultTransport, token: is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "aios.admin"})}})
	anon := connect(nil)
	for _, cs := range []*mcpsdk.ClientSession{admin, anon} {
		if res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": 1}}); err != nil || res.IsError {
			t.Fatalf("echo: %v %+v", err, res)
		}
	}
	if _, err := admin.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space://docs/sha256:00"}); err == nil {
		t.Fatal("read of a malformed id succeeded")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	recs := auditRecords(t, h)
	want := []struct{ caller, principal, session string }{
		{"admin", "oauth:alice", admin.ID()},
		{"viewer", "anonymous", anon.ID()},
		{"admin", "oauth:alice", admin.ID()},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %v", len(recs), len(want), recs)
	}
	for i, w := range want {
		r := recs[i]
		if w.session == "" {
			t.Fatalf("client %d has no session id", i)
		}
		if r["caller"] != w.caller || r["principal"] != w.principal || r["session"] != w.session {
			t.Errorf("record %d: caller %v principal %v session %v, want %s %s %s", i+1, r["caller"], r["principal"], r["session"], w.caller, w.principal, w.session)
		}
		// The request's TCP peer, from loopback.
		if remote, _ := r["remote"].(string); !strings.HasPrefix(remote, "127.0.0.1:") {
			t.Errorf("record %d: remote %v, want 127.0.0.1:PORT", i+1, r["remote"])
		}
	}
}
