package mcp

import (
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

// authServer is edgeHTTPServer behind a check of the bearer token: a
// request without "Bearer good" is answered 401 with a challenge, and a
// tools/call of "search" 403 insufficient_scope when scope is set.
func authServer(t *testing.T, scope, revoked *atomic.Bool) string {
	s := edgeHTTPServer()
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" || revoked.Load() {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="the token expired", resource_metadata="https://auth.example/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if scope.Load() && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if strings.Contains(string(body), `"name":"search"`) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="search:read"`)
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestAuthChallengeSaid: a URL server that refuses the bridge's
// token (401 with a WWW-Authenticate challenge) fails to connect with an
// error that says so and names the keys that give the token, not a bare
// "Unauthorized"; one that refuses a call for a scope the token lacks
// (403 insufficient_scope, MCP authorization's step-up) fails that call
// saying so, and the other calls on the session go on.
func TestAuthChallengeSaid(t *testing.T) {
	var scope, revoked atomic.Bool
	url := authServer(t, &scope, &revoked)
	for _, tok := range []string{"", "tok-XYZ123"} {
		_, _, logs, err := startBridge(t, map[string]ServerConfig{"r": {URL: url, Token: tok, ConnectTimeout: 3 * time.Second}})
		t.Logf("token %q: Start: %v", tok, err)
		if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "mcp.servers.r.token") || !strings.Contains(err.Error(), "invalid_token") {
			t.Errorf("token %q: Start error = %v; want the 401, the challenge's error and the keys to set", tok, err)
		}
		if tok != "" && strings.Contains(logs.String()+err.Error(), tok) {
			t.Errorf("the token is shown")
		}
	}

	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: url, Token: "good", ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.r")
	scope.Store(true)
	slow := make(chan error, 1)
	go func() {
		_, err := call(t, p, "mcp-r-wait3", nil, 10*time.Second)
		slow <- err
	}()
	time.Sleep(500 * time.Millisecond) // wait3 is under way
	_, err = call(t, p, "mcp-r-search", nil, 3*time.Second)
	t.Logf("403: %v", err)
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "insufficient_scope") || !strings.Contains(err.Error(), "search:read") {
		t.Errorf("a call refused for its scope answered %v; want the 403 and the scope it needs", err)
	}
	if err := <-slow; err != nil {
		t.Errorf("a call in flight when another was refused 403 failed: %v", err)
	}
	if v, err := call(t, p, "mcp-r-wait3", nil, 10*time.Second); err != nil {
		t.Errorf("after the 403: %v %v", v, err)
	}
	// The token revoked during the session: each call says so.
	revoked.Store(true)
	for range 2 {
		_, err = call(t, p, "mcp-r-wait3", nil, 3*time.Second)
		t.Logf("revoked: %v", err)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "refused the bridge's token: HTTP 401") {
			t.Errorf("a call after the token was revoked answered %v", err)
		}
	}
}

// TestParseChallengeAfterOtherScheme: the Bearer challenge is found after
// another scheme's, and the parameters of the challenge after it are not
// taken (the hand-written parser skipped the first header and took the
// second's realm-less scope).
func TestParseChallengeAfterOtherScheme(t *testing.T) {
	got := parseChallenge([]string{`DPoP algs="ES256", Bearer error="insufficient_scope", scope="a b"`, `Basic realm="x", scope="other"`})
	if got["error"] != "insufficient_scope" || got["scope"] != "a b" || len(got) != 2 {
		t.Fatalf("parseChallenge = %v; want error insufficient_scope, scope \"a b\"", got)
	}
	if got := parseChallenge([]string{`Bearer error="invalid_token", error_description="the \"token\" expired"`, `Basic scope="no"`}); got["error_description"] != `the "token" expired` || got["scope"] != "" {
		t.Fatalf("parseChallenge = %v", got)
	}
}
