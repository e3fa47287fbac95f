package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAuthorizationSchemeNamed: an Authorization header of another scheme
// (Basic, as a client given user:password in its URL sends) or "Bearer"
// with no token was refused "invalid bearer token", as if a token had
// been sent and was wrong; the 401 names the scheme (a registered one
// only: what stands before the space may be a secret) or the missing
// token and says what to send. The credentials are never echoed.
func TestAuthorizationSchemeNamed(t *testing.T) {
	ts := newTestServer(t, "", true)
	h := ts.s.Handler()
	for _, c := range []struct{ header, want string }{
		{"Basic dXNlcjpwYXNz", `scheme "Basic" is not Bearer`},
		{"Bearer", "no token after Bearer"},
		{"Bearer    ", "no token after Bearer"},
		{testToken, `not "Bearer <token>"`},
		{testToken + " x", `not "Bearer <token>"`},
		{"Bearer wrong-guess", "invalid bearer token"},
	} {
		req := httptest.NewRequest("POST", "/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"aios/registry.search"}`))
		req.RemoteAddr = "192.0.2.9:4000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", c.header)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var resp struct {
			Error struct{ Message string }
		}
		_ = json.Unmarshal(w.Body.Bytes(), &resp)
		if w.Code != http.StatusUnauthorized || !strings.Contains(resp.Error.Message, c.want) {
			t.Errorf("Authorization %q: %d %s, want 401 saying %q", c.header, w.Code, w.Body, c.want)
		}
		for _, secret := range []string{"dXNlcjpwYXNz", testToken, "wrong-guess"} {
			if strings.Contains(w.Body.String(), secret) {
				t.Errorf("Authorization %q: the credentials are echoed: %s", c.header, w.Body)
			}
		}
	}
}
