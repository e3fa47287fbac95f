package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A reverse proxy on the same machine says whom it forwards for in more
// headers than Forwarded and X-Forwarded-For: nginx set-ups commonly send
// X-Real-IP alone, others X-Forwarded-Host or -Proto, or Via. A loopback
// request carrying one of them came through a proxy, for a peer anywhere:
// server.metrics_auth: loopback asks it for a token, as for the other two.
func TestMetricsLoopbackProxyHeaders(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, h := range [][2]string{{"X-Real-IP", "203.0.113.9"}, {"X-Forwarded-Host", "aios.example.com"},
		{"X-Forwarded-Proto", "https"}, {"Via", "1.1 proxy.example"}} {
		req, _ := http.NewRequest("GET", ts.url+"/metrics", nil)
		req.Header.Set(h[0], h[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), h[0]) {
			t.Errorf("GET /metrics from loopback with %s: HTTP %d %.200s; want 401 naming the header (a proxied request)", h[0], resp.StatusCode, b)
		}
	}
}
