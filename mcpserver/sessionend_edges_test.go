package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestEndedSessionCallSaysWhy: a tools/call of a streamable-HTTP session
// that ended under it — its client DELETEd the session, or the server
// closed it because its user opened more than mcp.http.max_sessions — was
// cancelled with no cause, so its audit record said "its caller having
// cancelled: context canceled" either way: an operator could not tell a
// client that gave up from a session the server closed. The record now
// says which ended the session.
func TestEndedSessionCallSaysWhy(t *testing.T) {
	h, s := newSpaceHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n    max_sessions: 1\n")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer s.Close() // before srv.Close: ends what is left
	base := srv.URL
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(10 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	for _, mode := range []string{"delete", "evict"} {
		sid := initSession(t, base)
		hd := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			_ = post(t, base, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, hd)
		}()
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the call did not start", mode)
		}
		if mode == "delete" {
			req, _ := http.NewRequest(http.MethodDelete, base+Path, nil)
			req.Header.Set(sessionHeader, sid)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		} else {
			initSession(t, base) // one more than max_sessions: sid is closed
		}
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the call's POST did not end", mode)
		}
	}
	_ = s.Close()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, r := range auditRecords(t, h) {
		if r["tool"] == "slow" {
			if r["outcome"] != "Cancelled" {
				t.Errorf("record %v: outcome, want Cancelled", r)
			}
			e, _ := r["error"].(string)
			errs = append(errs, e)
		}
	}
	if len(errs) != 2 {
		t.Fatalf("records of slow: %q, want 2", errs)
	}
	if !strings.Contains(errs[0], "the MCP client ended its session") {
		t.Errorf("record of the call of a deleted session: %q; want it to say the client ended the session", errs[0])
	}
	if !strings.Contains(errs[1], "mcp.http.max_sessions") {
		t.Errorf("record of the call of an evicted session: %q; want it to name mcp.http.max_sessions", errs[1])
	}
}
