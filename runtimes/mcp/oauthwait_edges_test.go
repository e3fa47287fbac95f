package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestOAuthHungTokenEndpointKeepsDeadline: a call whose token must be
// renewed from a token endpoint that never answers ends at the call's
// deadline. The bridge waited for the token endpoint up to its own 30 s
// bound whatever the call's deadline (a call given 2 s answered after
// 30 s, the next one after 60 s, queued behind the first's renewal); now
// the wait ends with the request, and the error says so.
func TestOAuthHungTokenEndpointKeepsDeadline(t *testing.T) {
	a := newAS()
	var n atomic.Int32
	block := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 1 {
			select {
			case <-block:
			case <-r.Context().Done():
			}
			return
		}
		a.serveToken(w, r)
	})
	as := httptest.NewServer(mux)
	t.Cleanup(as.Close)
	t.Cleanup(func() { close(block) }) // before as.Close
	var refused atomic.Int32
	u := oauthMCP(t, a, as.URL, &refused)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 10 * time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", TokenURL: as.URL + "/token"}}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	a.revokeAll()
	p := rec.provider("org.aios.mcp.r")
	for i := range 2 {
		start := time.Now()
		_, err := call(t, p, "mcp-r-search", nil, 2*time.Second)
		took := time.Since(start)
		t.Logf("call %d after %v: %v", i, took, err)
		if err == nil {
			t.Fatalf("call %d succeeded with the token endpoint hung", i)
		}
		if took > 15*time.Second {
			t.Errorf("call %d with a 2 s deadline answered after %v: the bridge waited for the hung token endpoint past it", i, took)
		}
		// The request never left: the error said the server had not
		// answered it and had been sent notifications/cancelled.
		if !strings.Contains(err.Error(), "mcp server r") || !strings.Contains(err.Error(), "waited for an OAuth token") || strings.Contains(err.Error(), "notifications/cancelled") {
			t.Errorf("call %d: %v; want the server named, and the wait for a token, not a request the server left unanswered", i, err)
		}
	}
}

// TestOAuthHungDiscoveryAtConnectNamed: an authorization server whose
// metadata never comes failed the connect with the go-sdk's words alone,
// "connect to …: context deadline exceeded", naming neither OAuth nor
// what the bridge waited for. It says the bridge waited for a token, from
// which URL, within which setting, and that initialize was not sent.
func TestOAuthHungDiscoveryAtConnectNamed(t *testing.T) {
	block := make(chan struct{})
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(as.Close)
	t.Cleanup(func() { close(block) }) // before as.Close
	var refused atomic.Int32
	u := oauthMCP(t, newAS(), as.URL, &refused)
	_, _, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: time.Second,
		OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cret", Issuer: as.URL}}})
	if err == nil {
		t.Fatal("Start succeeded with a hung authorization server")
	}
	// (Said by the connect's end, or by Start when it gave up waiting for
	// it first: on a loaded machine either may come first.)
	for _, want := range []string{"connect_timeout (1s)", "OAuth token", as.URL + "/.well-known/", "mcp.servers.r.oauth", "initialize"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v; want …%s…", err, want)
		}
	}
}
