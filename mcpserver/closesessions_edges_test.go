package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/internal/testutil"
)

// Close left every streamable-HTTP session open: each kept its go-sdk
// session, a goroutine reading it and its state until
// mcp.http.session_timeout (30 min by default) — a program embedding the
// server that closed it, and its HTTP server, kept them all that time, and
// one that made a new server per configuration kept them per server. Close
// now ends every session (stdio sessions end anyway when their transport
// does).
func TestCloseEndsHTTPSessions(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx := context.Background()
	before := testutil.SettleGoroutines(0, time.Second)
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx,
		&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": "x"}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range s.MCP().Sessions() {
		n++
	}
	if n != 1 {
		t.Fatalf("%d sessions before Close, want 1", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	n = 0
	for range s.MCP().Sessions() {
		n++
	}
	if n != 0 {
		t.Errorf("%d sessions still open after Close, want 0", n)
	}
	srv.CloseClientConnections()
	_ = cs.Close()
	srv.Close()
	if after := testutil.SettleGoroutines(before, 10*time.Second); after > before {
		t.Errorf("%d goroutines after Close, %d before the session", after, before)
	}
}

// After Close an initialize POST to /mcp still started a session (and its
// goroutine) that lived until mcp.http.session_timeout, every call in it
// answered "shutting down"; /mcp now answers 503 and starts none.
func TestNoSessionAfterClose(t *testing.T) {
	s, base := anonHTTP(t, "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	a := post(t, base, initBody, nil)
	if a.status != http.StatusServiceUnavailable || a.header.Get(sessionHeader) != "" {
		t.Errorf("initialize after Close: %d, session %q; want 503 and no session", a.status, a.header.Get(sessionHeader))
	}
	for range s.MCP().Sessions() {
		t.Fatal("a session exists after Close")
	}
}
