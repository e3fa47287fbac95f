package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCrossOriginRedirectHidesURLSecrets: a url server that redirected the
// bridge to another origin was refused with an error quoting its url
// whole, so a key in its query (…/mcp?api_key=…) or a password in it went
// to the log and to the error of Start. The url is quoted as everywhere
// else: its query as "…", its password redacted.
func TestCrossOriginRedirectHidesURLSecrets(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not here", http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	const key, pass = "sekritQueryKey123", "sekritPassword456"
	u := strings.Replace(srv.URL, "http://", "http://user:"+pass+"@", 1) + "/mcp?api_key=" + key
	sc := ServerConfig{URL: u, ConnectTimeout: 5 * time.Second, ReconnectMax: 200 * time.Millisecond}
	_, _, logs, err := startBridge(t, map[string]ServerConfig{"redir": sc})
	got := logs.String()
	if err != nil {
		got += "\nStart: " + err.Error()
	}
	if !strings.Contains(got, "another origin") {
		t.Fatalf("the cross-origin redirect was not reported; log and error: %s", got)
	}
	if strings.Contains(got, key) || strings.Contains(got, pass) {
		t.Fatalf("the url's key or password reached the log or the error: %s", got)
	}
	// Nor do the config errors that quote the url.
	for _, bad := range []ServerConfig{{URL: u, Command: "x"}, {URL: strings.Replace(u, "http://", "ftp://", 1)}} {
		_, err := bad.normalize("s", "")
		if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), pass) {
			t.Fatalf("config error quoting the url: %v", err)
		}
	}
}
