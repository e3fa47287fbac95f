package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestOAuthTokenEndpointWithoutOAuthAnswer: a token endpoint that answers
// a status without an OAuth error (404: token_url names no token
// endpoint) fails with an error saying that, not that the bridge's
// credentials were refused: it said "the bridge's OAuth client
// credentials (…) were refused by the token endpoint …: 404 Not Found",
// sending the operator to the client's id and secret.
func TestOAuthTokenEndpointWithoutOAuthAnswer(t *testing.T) {
	as := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(as.Close)
	var refused atomic.Int32
	u := oauthMCP(t, newAS(), as.URL, &refused)
	_, _, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 5 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", TokenURL: as.URL + "/oauth/token"}}})
	t.Logf("Start: %v", err)
	if err == nil {
		t.Fatal("Start succeeded with no token endpoint")
	}
	for _, want := range []string{"mcp.servers.r.oauth", as.URL + "/oauth/token", "404 Not Found", "no OAuth"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v; want …%s…", err, want)
		}
	}
	if strings.Contains(err.Error(), "credentials (mcp.servers.r.oauth) were refused") {
		t.Errorf("Start: %v; a 404 is no refusal of the credentials", err)
	}
}

// TestOAuthTokenEndpointHTMLNamed: a token endpoint answering 200 with an
// HTML page (a login page, a proxy's) failed with the oauth2 package's
// "oauth2: cannot parse json: …", naming no URL: the operator could not
// tell which endpoint answered (p173's finding). The error names the URL
// the bridge asked, with token_url and with the issuer's discovered one.
func TestOAuthTokenEndpointHTMLNamed(t *testing.T) {
	html := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Sign in</body></html>"))
	})
	as := httptest.NewServer(html)
	t.Cleanup(as.Close)
	var refused atomic.Int32
	u := oauthMCP(t, newAS(), as.URL, &refused)
	_, _, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 5 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", TokenURL: as.URL + "/oauth/token?tenant=x"}}})
	if err == nil {
		t.Fatal("Start succeeded with an HTML page for a token endpoint")
	}
	for _, want := range []string{"mcp.servers.r.oauth", as.URL + "/oauth/token", "json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v; want …%s…", err, want)
		}
	}
	if strings.Contains(err.Error(), "tenant=x") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Start: %v; shows the token URL's query or the secret", err)
	}
}
