package mcpserver

import (
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// tokenWith mints a token of is for subject alice with the claims extra
// besides iss, sub, aud and exp.
func (is *issuer) tokenWith(t *testing.T, extra map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), is.kid))
	if err != nil {
		t.Fatal(err)
	}
	c := jwt.Claims{Issuer: is.url, Subject: "alice", Audience: jwt.Audience{"http://aios.test/mcp"},
		IssuedAt: jwt.NewNumericDate(time.Now().Add(-time.Minute)), Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}
	tok, err := jwt.Signed(sig).Claims(c).Claims(extra).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestScopeClaimShapes: authorization servers write a token's scopes
// in different shapes: RFC 8693's "scope" is a space-separated string
// (Keycloak, Auth0), Okta's "scp" an array, Microsoft Entra ID's "scp" a
// space-separated string. Each is a valid token whose scope maps to an
// agent; an Entra ID token was refused with 401 "token signature does not
// verify with the issuer's keys", blaming its signature for a claim's
// shape. A scope claim of another type (a number) is refused naming the
// claim, not the signature.
func TestScopeClaimShapes(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "")
	for _, tc := range []struct {
		name   string
		claims map[string]any
	}{
		{"scope string", map[string]any{"scope": "openid aios.tools"}},
		{"scope array", map[string]any{"scope": []string{"openid", "aios.tools"}}},
		{"scp array (Okta)", map[string]any{"scp": []string{"openid", "aios.tools"}}},
		{"scp string (Entra ID)", map[string]any{"scp": "User.Read aios.tools"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := post(t, base, initBody, map[string]string{"Authorization": "Bearer " + is.tokenWith(t, tc.claims)})
			if a.status != 200 || a.header.Get(sessionHeader) == "" {
				t.Fatalf("initialize with %v: %d %s (WWW-Authenticate %q)", tc.claims, a.status, a.body, a.header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("scp number", func(t *testing.T) {
		a := post(t, base, initBody, map[string]string{"Authorization": "Bearer " + is.tokenWith(t, map[string]any{"scp": 7})})
		wa := a.header.Get("WWW-Authenticate")
		if a.status != 401 || !strings.Contains(wa, "scp") || strings.Contains(wa, "signature") {
			t.Fatalf("a token whose scp is a number: %d %q, want 401 naming the scp claim, not the signature", a.status, wa)
		}
	})
}
