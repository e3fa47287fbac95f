package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMetricsLoopbackNotRebound: server.metrics_auth: loopback lets
// the local user read GET /metrics without a token. A web page that
// rebinds its own name to 127.0.0.1 (DNS rebinding) reaches the listener
// from a loopback address too, same-origin to its browser, so it could
// read every tool and provider name; so could anyone behind a reverse
// proxy on the same machine. Such a request carries the page's or the
// proxy's Host, or the proxy's Forwarded headers: it is not the local user
// and needs a token, as any other peer.
func TestMetricsLoopbackNotRebound(t *testing.T) {
	ts := newTestServer(t, "", true)
	get := func(host, header, value, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", ts.url+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		if header != "" {
			req.Header.Set(header, value)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		name, host, header, value, token string
		want                             int
	}{
		{name: "local user", want: 200},
		{name: "localhost", host: "localhost:7700", want: 200},
		{name: "ipv6 loopback name", host: "[::1]:7700", want: 200},
		{name: "rebound page", host: "attacker.example:7700", want: 401},
		{name: "rebound page, no port", host: "attacker.example", want: 401},
		{name: "rebound page with a token", host: "attacker.example:7700", token: testToken, want: 200},
		{name: "proxied (X-Forwarded-For)", header: "X-Forwarded-For", value: "203.0.113.9", want: 401},
		{name: "proxied (Forwarded)", header: "Forwarded", value: "for=203.0.113.9", want: 401},
		{name: "proxied with a token", header: "X-Forwarded-For", value: "203.0.113.9", token: testToken, want: 200},
	} {
		code, body := get(tc.host, tc.header, tc.value, tc.token)
		if code != tc.want {
			t.Errorf("%s: HTTP %d, want %d: %.200s", tc.name, code, tc.want, body)
			continue
		}
		if code == 200 && !strings.Contains(body, "aios_tools") {
			t.Errorf("%s: body lacks aios_tools: %.200s", tc.name, body)
		}
		if code == 401 && !strings.Contains(body, "metrics_auth") {
			t.Errorf("%s: the 401 does not say why a loopback peer needs a token (server.metrics_auth): %s", tc.name, body)
		}
	}
}
