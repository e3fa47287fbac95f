package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOAuthTokenRedirectKeepsSecret: a token endpoint (token_url) that
// answers 307 to another origin does not get the client secret sent
// there. The bridge's client for its authorization server followed every
// redirect: the basic-auth header was dropped for another host, oauth2
// then sent the secret in the form, and the 307 carried that body to the
// other origin. Now a redirect off the token endpoint's origin is refused,
// and the error names the entry and both origins.
func TestOAuthTokenRedirectKeepsSecret(t *testing.T) {
	a := newAS()
	var mu sync.Mutex
	var sent []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		sent = append(sent, r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
		http.Error(w, "no", http.StatusBadRequest)
	}))
	t.Cleanup(other.Close)
	// Another host name than the token endpoint's 127.0.0.1, as a real
	// other origin would have.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+"/token", http.StatusTemporaryRedirect)
	})
	as := httptest.NewServer(mux)
	t.Cleanup(as.Close)
	var refused atomic.Int32
	u := oauthMCP(t, a, as.URL, &refused)
	_, _, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 5 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", TokenURL: as.URL + "/token"}}})
	t.Logf("Start: %v", err)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range sent {
		if strings.Contains(s, "s3cret") || strings.Contains(s, "Basic ") {
			t.Errorf("the client secret reached the origin the token endpoint redirected to: %q", s)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "mcp.servers.r.oauth") || !strings.Contains(err.Error(), otherURL) {
		t.Errorf("Start: %v; want an error naming the oauth entry and where the token endpoint redirected", err)
	}
}
