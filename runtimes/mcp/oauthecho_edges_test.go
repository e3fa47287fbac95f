package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestOAuthEchoedSecretNotShown: a token endpoint whose refusal quotes the
// client secret back (in error_description, or in a body oauth2 cannot
// parse) does not get it into the request's error, which reaches the
// calls' callers and the log. The bridge quoted the description as it
// came, the secret with it; now the secret is blanked out wherever the
// authorization server's words are shown.
func TestOAuthEchoedSecretNotShown(t *testing.T) {
	for _, tc := range []struct{ ctype, body, want string }{
		{"application/json", `{"error":"invalid_client","error_description":"secret s3cr3t-XYZ&1 is not this client's"}`, "invalid_client"},
		{"application/json", `{"error":"invalid_client","error_description":"got client_secret=s3cr3t-XYZ%261"}`, "invalid_client"},
	} {
		mux := http.NewServeMux()
		mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.ctype)
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(tc.body))
		})
		as := httptest.NewServer(mux)
		t.Cleanup(as.Close)
		var refused atomic.Int32
		u := oauthMCP(t, newAS(), as.URL, &refused)
		_, _, logs, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 5 * time.Second,
			OAuth: &OAuth{ClientID: "aios", ClientSecret: "s3cr3t-XYZ&1", TokenURL: as.URL + "/token"}}})
		t.Logf("Start: %v", err)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "mcp.servers.r.oauth") {
			t.Fatalf("Start: %v; want the endpoint's %s and the key", err, tc.want)
		}
		for _, s := range []string{"s3cr3t-XYZ", "s3cr3t-XYZ%261"} {
			if strings.Contains(err.Error()+logs.String(), s) {
				t.Errorf("%s: the client secret the token endpoint echoed is shown: %v", tc.body, err)
			}
		}
	}
}
