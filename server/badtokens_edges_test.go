package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBadTokensRefusedForAWhile: an HTTP client address that sent 10
// invalid bearer tokens within a minute is refused with 429 and
// Retry-After, even with a valid token, until its window ends; other
// addresses are served; a missing token does not count.
func TestBadTokensRefusedForAWhile(t *testing.T) {
	ts := newTestServer(t, "", true)
	h := ts.s.Handler()
	do := func(remote, token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.RemoteAddr = remote
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	const guesser, other = "192.0.2.7:40000", "192.0.2.8:40000"
	for range 20 {
		if w := do(guesser, ""); w.Code != http.StatusUnauthorized {
			t.Fatalf("no token: %d %s", w.Code, w.Body)
		}
	}
	if w := do(guesser, testToken); w.Code != 200 {
		t.Fatalf("missing tokens counted: %d %s", w.Code, w.Body)
	}
	for i := range 10 {
		if w := do(guesser, "wrong-guess-"+string(rune('a'+i))); w.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d %s", i+1, w.Code, w.Body)
		}
	}
	w := do("192.0.2.7:40001", testToken) // same IP, another port
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "too many invalid bearer tokens from 192.0.2.7") {
		t.Fatalf("after 10 invalid tokens: %d %q %s, want 429 with Retry-After naming the address", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := do(other, testToken); w.Code != 200 {
		t.Fatalf("another address: %d %s", w.Code, w.Body)
	}
}
