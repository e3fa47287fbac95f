package trust

import (
	"strings"
	"testing"
)

// TestJWKSURLNotHTTPRefused: a discovery.keys jwks_url that is no http(s)
// URL — a file path written under jwks_url instead of jwks, a file:// URL,
// a URL without a host — was taken at start, and every card signed by its
// keys was refused at load, and again at every retry, as `fetching JWKS
// keys/vendor.json: Get "keys/vendor.json": unsupported protocol scheme ""`,
// blaming each card's key. The entry is refused when the config is loaded,
// naming the value and what is wanted.
func TestJWKSURLNotHTTPRefused(t *testing.T) {
	for _, u := range []string{"keys/vendor.json", "/etc/aios/vendor.json", "file:///etc/aios/vendor.json", "https://", "ftp://hub.example/jwks.json", "hub.example/jwks.json"} {
		_, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKSURL: u}}, "", nil)
		if err == nil || !strings.Contains(err.Error(), "jwks_url") || !strings.Contains(err.Error(), `"`+u+`"`) || !strings.Contains(err.Error(), "http") {
			t.Errorf("jwks_url %q: err = %v, want one naming the value and asking for an http(s) URL", u, err)
		}
	}
	for _, u := range []string{"https://hub.example/.well-known/jwks.json", "http://127.0.0.1:7700/jwks.json", "HTTPS://hub.example/jwks.json"} {
		if _, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKSURL: u}}, "", nil); err != nil {
			t.Errorf("jwks_url %q: %v", u, err)
		}
	}
}
