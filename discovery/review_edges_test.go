package discovery

import (
	"net/http"
	"net/url"
	"testing"
)

// TestRedirectDefaultPortSameOrigin: a remote adapter's redirects
// are followed within the request's origin (TestRemoteCallRedirectOffOrigin),
// but the origin was compared as the URL's host text, so a redirect from
// https://a.example/rpc to https://a.example:443/v2/rpc — the same origin,
// its default port written out — was refused as "another origin" (the MCP
// bridge, whose rule this is, makes default ports explicit). Another
// port, scheme or host is still refused.
func TestRedirectDefaultPortSameOrigin(t *testing.T) {
	check := sameOriginRedirects(&http.Client{}, "org.test.redir").CheckRedirect
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"https://a.example/rpc", "https://a.example:443/v2/rpc", true},
		{"https://a.example:443/rpc", "https://a.example/v2/rpc", true},
		{"http://a.example/rpc", "http://a.example:80/v2/rpc", true},
		{"https://A.Example/rpc", "HTTPS://a.example/v2/rpc", true},
		{"https://a.example/rpc", "https://a.example:8443/v2/rpc", false},
		{"https://a.example/rpc", "http://a.example/v2/rpc", false},
		{"http://a.example/rpc", "http://a.example:443/v2/rpc", false},
		{"https://a.example/rpc", "https://b.example/v2/rpc", false},
	} {
		from, _ := url.Parse(tc.from)
		to, _ := url.Parse(tc.to)
		err := check(&http.Request{URL: to}, []*http.Request{{URL: from}})
		if (err == nil) != tc.ok {
			t.Errorf("redirect %s -> %s: %v, want followed %v", tc.from, tc.to, err, tc.ok)
		}
	}
}
