package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// TestClockSkewAppliesToExpiry: mcp.http.clock_skew is the leeway for
// exp (README, docs/mcp.md): with clock_skew 1m a token that expired 30 s
// ago by this host's clock is still good. The verifier took it, and then
// the go-sdk's bearer check, which knew no leeway, refused it: 401 "token
// expired" without the WWW-Authenticate challenge (resource_metadata,
// error="invalid_token") a 401 must carry and an MCP client reads to
// refresh its token. A token past the leeway is refused with the
// challenge.
func TestClockSkewAppliesToExpiry(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "    clock_skew: 1m\n")
	const aud = "http://aios.test/mcp"
	a := post(t, base, initBody, map[string]string{"Authorization": "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools", exp: -30 * time.Second})})
	if a.status != 200 || a.header.Get(sessionHeader) == "" {
		t.Errorf("a token 30 s past its exp, clock_skew 1m: %d %q (WWW-Authenticate %q), want a session", a.status, a.body, a.header.Get("WWW-Authenticate"))
	}
	a = post(t, base, initBody, map[string]string{"Authorization": "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools", exp: -2 * time.Minute})})
	if wa := a.header.Get("WWW-Authenticate"); a.status != 401 || !strings.Contains(wa, `error="invalid_token"`) || !strings.Contains(wa, "resource_metadata=") {
		t.Errorf("a token 2 min past its exp, clock_skew 1m: %d %q (WWW-Authenticate %q), want 401 with the challenge", a.status, a.body, wa)
	}
}
