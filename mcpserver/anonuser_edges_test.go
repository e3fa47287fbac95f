package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestAnonymousUserNotATokenUser: an MCP HTTP session belongs to the
// user that opened it (the go-sdk compares TokenInfo.UserID), a token's
// user being AGENT:SUBJECT. Tokenless requests (mcp.http.anonymous_agent:
// alice) were the user "anonymous:alice" — also the user of any token
// whose scope maps to an agent named "anonymous" (a valid agent name) and
// whose subject is alice: such a token holder and every tokenless client
// used, listed and ended each other's sessions. The anonymous user is
// spelt so that no token's user can be it.
func TestAnonymousUserNotATokenUser(t *testing.T) {
	is := newIssuer(t)
	cfg := HTTPConfig{Issuer: is.url, JWKSURL: is.jwks, Scopes: []ScopeAgent{{Scope: "guest", Agent: "anonymous"}}, AnonymousAgent: "alice"}
	v := newVerifier(cfg, func() string { return "http://aios.test/mcp" }, nil)
	userOfReq := func(token string) string {
		t.Helper()
		var user string
		h := requireToken(v, func(*http.Request) string { return "http://aios.test/.well-known/oauth-protected-resource" }, cfg.AnonymousAgent,
			http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
					user = ti.UserID
				}
			}))
		r := httptest.NewRequest("POST", "http://aios.test/mcp", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if user == "" {
			t.Fatalf("request (token %v) not served: %d %s", token != "", w.Code, w.Body.String())
		}
		return user
	}
	anon := userOfReq("")
	tok := userOfReq(is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "guest"})) // subject alice, agent anonymous
	if anon == tok {
		t.Fatalf("a tokenless client and the token of subject alice mapped to agent anonymous are one user %q: each may use the other's sessions", anon)
	}
}
