package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestIssuerKeysExpireWhenUnreachable: while the issuer's JWKS URL fails,
// its keys last fetched keep verifying tokens for DefaultJWKSMaxStale, then
// no longer; failed fetches are retried at most every 10 s, not on every
// request.
func TestIssuerKeysExpireWhenUnreachable(t *testing.T) {
	is := newIssuer(t)
	var down atomic.Bool
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Get(is.jwks)
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		buf := make([]byte, 64<<10)
		n, _ := resp.Body.Read(buf)
		_, _ = w.Write(buf[:n])
	}))
	defer srv.Close()
	now := time.Now()
	v := newVerifier(HTTPConfig{Issuer: is.url, JWKSURL: srv.URL, Agent: "mcp"}, func() string { return "http://aios.test/mcp" }, nil)
	v.now = func() time.Time { return now }
	n := 0
	verify := func() error {
		n++ // a fresh token each time (none cached)
		_, err := v.verify(context.Background(), is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "s", exp: 72*time.Hour + time.Duration(n)*time.Second}))
		return err
	}
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	now = now.Add(DefaultJWKSMaxStale - time.Hour)
	before := fetches.Load()
	for range 5 {
		if err := verify(); err != nil {
			t.Fatalf("within DefaultJWKSMaxStale, the JWKS down: %v", err)
		}
	}
	if got := fetches.Load() - before; got != 1 {
		t.Fatalf("%d fetches for 5 tokens within 10 s with the JWKS down, want 1", got)
	}
	now = now.Add(2 * time.Hour)
	if err := verify(); err == nil || !strings.Contains(err.Error(), "issuer keys") {
		t.Fatalf("past DefaultJWKSMaxStale, the JWKS down: %v", err)
	}
	down.Store(false)
	now = now.Add(11 * time.Second)
	if err := verify(); err != nil {
		t.Fatalf("after the JWKS came back: %v", err)
	}
}
