package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// DNS rebinding: a page at http://evil.example:7700 whose name the attacker
// then points at the host's address sends requests that carry
// Origin: http://evil.example:7700 and Host: evil.example:7700 — the same
// origin, as its browser sees it. The Origin check took an Origin whose
// host is the request's Host as this server's, so on a listener that is
// not loopback (where the go-sdk's own Host check does not apply) such a
// page used /mcp with mcp.http.anonymous_agent. A Host that is a name is
// this server's only as the resource URI's origin (server.public_url,
// mcp.http.resource) or an allowed origin; an address or localhost, which
// rebinding cannot put in Host, still is.
func TestOriginCheckWithstandsDNSRebinding(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n    allowed_origins: ['http://app.example:7700']\n")
	h := s.Handler()
	for _, tc := range []struct {
		host, origin string
		status       int
	}{
		{"evil.example:7700", "http://evil.example:7700", http.StatusForbidden},
		{"EVIL.example:7700", "http://evil.example:7700", http.StatusForbidden},
		{"192.0.2.7:7700", "http://192.0.2.7:7700", http.StatusOK},
		{"[2001:db8::7]:7700", "http://[2001:db8::7]:7700", http.StatusOK},
		{"localhost:7700", "http://localhost:7700", http.StatusOK},
		{"127.0.0.1", "http://127.0.0.1", http.StatusOK},               // the resource URI's origin
		{"app.example:7700", "http://app.example:7700", http.StatusOK}, // mcp.http.allowed_origins
	} {
		// (httptest.NewRequest carries no local address: as on a listener
		// that is not loopback, the go-sdk's Host check is off.)
		req := httptest.NewRequest(http.MethodPost, "http://"+tc.host+Path, strings.NewReader(initBody))
		req.Host = tc.host
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("Host %s, Origin %s: %d %.200s, want %d", tc.host, tc.origin, rec.Code, rec.Body.String(), tc.status)
		}
	}
}
