package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/config"
)

// oauthAS is an authorization server of the client credentials grant for
// the tests: it issues tokens tok-1, tok-2, … to client "aios" with
// secret "s3cret" and records what it was asked.
type oauthAS struct {
	mu      sync.Mutex
	issued  []string
	scopes  []string // of each token request
	revoked map[string]bool
	secrets []string // client secrets it was sent, right or wrong
	expires int      // the tokens' expires_in (default 3600)
}

func (a *oauthAS) valid(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.issued {
		if t == tok && !a.revoked[t] {
			return true
		}
	}
	return false
}

func (a *oauthAS) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.issued {
		a.revoked[t] = true
	}
}

func (a *oauthAS) tokens() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.issued)
}

// serveToken is the token endpoint.
func (a *oauthAS) serveToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.secrets = append(a.secrets, secret)
	w.Header().Set("Content-Type", "application/json")
	if r.PostForm.Get("grant_type") != "client_credentials" || id != "aios" || secret != "s3cret" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client or wrong secret"}`))
		return
	}
	tok := fmt.Sprintf("tok-%d", len(a.issued)+1)
	a.issued = append(a.issued, tok)
	a.scopes = append(a.scopes, r.PostForm.Get("scope"))
	exp := a.expires
	if exp == 0 {
		exp = 3600
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": exp})
}

// serveMetadata serves RFC 8414 metadata of issuer at mux.
func (a *oauthAS) serveMetadata(mux *http.ServeMux, issuer *string) {
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": *issuer, "token_endpoint": *issuer + "/token",
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
			"code_challenge_methods_supported":      []string{"S256"}, "grant_types_supported": []string{"client_credentials"}})
	})
	mux.HandleFunc("/token", a.serveToken)
}

// oauthMCP is an MCP server at /mcp that takes only a's live tokens, and
// names authServer (its own origin when "") in its resource metadata.
// It counts the requests it refused.
func oauthMCP(t *testing.T, a *oauthAS, authServer string, refused *atomic.Int32) string {
	s := edgeHTTPServer()
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	self := srv.URL
	if authServer == "" {
		authServer = self
		a.serveMetadata(mux, &self)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": self + "/mcp", "authorization_servers": []string{authServer}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !a.valid(tok) {
			refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", scope="search:read", resource_metadata="`+self+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	return self + "/mcp"
}

func newAS() *oauthAS { return &oauthAS{revoked: map[string]bool{}} }

// TestOAuthClientCredentialsDiscovered: a URL server that takes only
// tokens of its authorization server (at its own origin) is reached with
// mcp.servers.<name>.oauth's client id and secret: the bridge follows the
// 401 to the resource and authorization server metadata, gets a token by
// the client credentials grant with the scope the challenge names, and
// reuses it; when the token is revoked, the next call gets a new one and
// succeeds. (The bridge ran no OAuth flow: such a server could not be
// bridged but with a token pasted into the config, which expired.)
func TestOAuthClientCredentialsDiscovered(t *testing.T) {
	a := newAS()
	var refused atomic.Int32
	u := oauthMCP(t, a, "", &refused)
	t.Setenv("AIOS_TEST_SECRET", "s3cret")
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 10 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecretEnv: "AIOS_TEST_SECRET"}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	p := rec.provider("org.aios.mcp.r")
	for i := range 3 {
		if res, err := call(t, p, "mcp-r-search", nil, 10*time.Second); err != nil {
			t.Fatalf("call %d: %v", i, err)
		} else if !strings.Contains(fmt.Sprint(res), "found") {
			t.Fatalf("call %d: %v", i, res)
		}
	}
	if n := a.tokens(); n != 1 {
		t.Fatalf("%d tokens issued for 3 calls; want 1, reused", n)
	}
	if a.scopes[0] != "search:read" {
		t.Errorf("the token was asked for scope %q; want the challenge's search:read", a.scopes[0])
	}
	a.revokeAll()
	if _, err := call(t, p, "mcp-r-search", nil, 10*time.Second); err != nil {
		t.Fatalf("after the token was revoked: %v", err)
	}
	if n := a.tokens(); n != 2 {
		t.Fatalf("%d tokens issued; want a second after the first was revoked", n)
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the client secret is in the log")
	}
}

// TestOAuthTokenURL: with token_url the bridge asks for its token before
// its first request (the server never answers 401), with the scopes the
// entry names.
func TestOAuthTokenURL(t *testing.T) {
	a := newAS()
	mux := http.NewServeMux()
	mux.HandleFunc("/token", a.serveToken)
	as := httptest.NewServer(mux)
	t.Cleanup(as.Close)
	var refused atomic.Int32
	u := oauthMCP(t, a, as.URL, &refused)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 10 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", TokenURL: as.URL + "/token", Scopes: []string{"search:read", "index:read"}}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("the server refused %d requests: the first should carry a token", n)
	}
	if a.tokens() != 1 || a.scopes[0] != "search:read index:read" {
		t.Errorf("tokens %d, scopes %q; want one, for the entry's scopes", a.tokens(), a.scopes)
	}
}

// TestOAuthSecretStaysWithIssuer: a server whose metadata names an
// authorization server at another origin gets no token unless the entry
// names that issuer: the client secret is never sent there, and the error
// says which key lets it.
func TestOAuthSecretStaysWithIssuer(t *testing.T) {
	a := newAS()
	mux := http.NewServeMux()
	as := httptest.NewServer(mux)
	t.Cleanup(as.Close)
	issuer := as.URL
	a.serveMetadata(mux, &issuer)
	var refused atomic.Int32
	u := oauthMCP(t, a, as.URL, &refused)
	_, _, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 5 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret"}}})
	t.Logf("Start: %v", err)
	if err == nil || !strings.Contains(err.Error(), "mcp.servers.r.oauth.issuer") {
		t.Fatalf("Start: %v; want a refusal naming oauth.issuer", err)
	}
	if len(a.secrets) != 0 {
		t.Fatalf("the client secret was sent to another origin's token endpoint")
	}
	// Named, it is trusted.
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 10 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", Issuer: as.URL}}})
	if err != nil {
		t.Fatalf("with issuer %s: %v", as.URL, err)
	}
	if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestOAuthRefusedCredentials: a wrong client secret fails the connection
// with the token endpoint's own error, naming the entry's oauth key, and
// without the secret.
func TestOAuthRefusedCredentials(t *testing.T) {
	a := newAS()
	var refused atomic.Int32
	u := oauthMCP(t, a, "", &refused)
	_, _, logs, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 5 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "wrong-XYZ"}}})
	t.Logf("Start: %v", err)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") || !strings.Contains(err.Error(), "mcp.servers.r.oauth") {
		t.Fatalf("Start: %v; want the token endpoint's invalid_client and the key", err)
	}
	if strings.Contains(err.Error()+logs.String(), "wrong-XYZ") {
		t.Errorf("the client secret is shown")
	}
}

// TestOAuthConfigChecked: an oauth entry is checked when the config is
// loaded, each error naming the key.
func TestOAuthConfigChecked(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{"command: /bin/true\n      oauth: {client_id: a, client_secret: b}", "token, token_env and oauth apply to url servers only"},
		{"url: https://x.example/mcp\n      token: t\n      oauth: {client_id: a, client_secret: b}", "oauth: has both oauth and a token"},
		{"url: https://x.example/mcp\n      oauth: {client_secret: b}", "oauth.client_id: missing"},
		{"url: https://x.example/mcp\n      oauth: {client_id: a}", "oauth: needs client_secret_env"},
		{"url: https://x.example/mcp\n      oauth: {client_id: a, client_secret: b, token_url: \"http://auth.example/token\"}", `oauth.token_url "http://auth.example/token": want an https:// URL`},
		{"url: https://x.example/mcp\n      oauth: {client_id: a, client_secret: b, scopes: [\"a b\"]}", `oauth.scopes[0] "a b"`},
		{"url: https://x.example/mcp\n      oauth: {client_id: a, client_secret: b, secret: c}", "unknown"},
	} {
		cfg, err := config.Parse([]byte("mcp:\n  servers:\n    x:\n      "+tc.entry+"\n"), "c.yaml")
		if err == nil {
			_, err = LoadConfig(cfg)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", tc.entry, err, tc.want)
		}
	}
	cfg, err := config.Parse([]byte("mcp:\n  servers:\n    x:\n      url: https://x.example/mcp\n      oauth: {client_id: a, client_secret_env: S, token_url: \"http://127.0.0.1:9/token\"}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("a loopback http token_url: %v", err)
	}
}

// TestOAuthTokenRefreshedAfterExpiry: a token past its expiry is asked
// for again before the request (the token source the discovery made keeps
// the bridge's context: it kept the context of the request that led to
// the discovery, which had ended, and every refresh failed "context
// canceled").
func TestOAuthTokenRefreshedAfterExpiry(t *testing.T) {
	a := newAS()
	a.expires = 1 // within oauth2's 10 s margin: expired at once
	var refused atomic.Int32
	u := oauthMCP(t, a, "", &refused)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 10 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret"}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	before := a.tokens()
	for i := range 2 {
		if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 10*time.Second); err != nil {
			t.Fatalf("call %d with the token expired: %v", i, err)
		}
	}
	if a.tokens() < before+2 {
		t.Fatalf("%d tokens issued over two calls after %d; want a new one each (expired)", a.tokens()-before, before)
	}
}
