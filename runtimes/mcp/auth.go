package mcp

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// An HTTP server that refuses the bridge's credentials answers 401 (no
// token, or one it does not take) or 403 (MCP authorization: a token that
// lacks a scope the request needs, error="insufficient_scope"), with a
// WWW-Authenticate challenge saying why. The go-sdk turned either into a
// bare "Unauthorized"/"Forbidden" and, being no transient status, failed
// the whole session: every call in flight on it failed with the one
// refused. authTransport makes such an answer to a POST the request's
// error instead (an *authError, which the go-sdk passes to that request
// alone, as it does a request that did not reach the server), saying what
// the challenge says and which keys give the bridge its token: the
// operator's (token, token_env), or one the bridge gets with the OAuth
// client credentials grant (oauth, oauth.go), which has already asked for
// a new token once when this answer comes.

// authTransport turns a 401 or 403 answer to a POST into an *authError.
// (A GET of the standalone stream answered so is taken by the go-sdk as a
// server without that stream, and the session goes on.)
type authTransport struct {
	base   http.RoundTripper
	server string
	token  bool // the bridge sends a token
	oauth  bool // got by the client credentials grant (oauth.go)
}

func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return nil, &authError{server: t.server, status: resp.StatusCode, token: t.token || t.oauth, oauth: t.oauth,
		challenge: parseChallenge(resp.Header.Values("WWW-Authenticate"))}
}

// authError is a URL server's 401 or 403 answer to one request.
type authError struct {
	server    string
	status    int
	token     bool              // the bridge sent a token
	oauth     bool              // one got with its OAuth client credentials
	challenge map[string]string // the Bearer challenge's error, error_description, scope
}

func (e *authError) Error() string {
	var why []string
	for _, k := range []string{"error", "error_description"} {
		if v := e.challenge[k]; v != "" {
			why = append(why, v)
		}
	}
	if v := e.challenge["scope"]; v != "" {
		why = append(why, "scope "+strconv.Quote(v))
	}
	said := ""
	if len(why) > 0 {
		said = " (" + strings.Join(why, ": ") + ")"
	}
	status := fmt.Sprintf("HTTP %d %s%s", e.status, http.StatusText(e.status), said)
	keys := fmt.Sprintf("mcp.servers.%s.token or token_env, or oauth for the client credentials grant", e.server)
	if e.oauth {
		keys = fmt.Sprintf("mcp.servers.%s.oauth: the token is its authorization server's, got with the bridge's client credentials; check the client's grants and scopes there", e.server)
	}
	switch {
	case e.status == http.StatusForbidden && e.challenge["error"] == "insufficient_scope":
		return fmt.Sprintf("the server refused the request: %s: the bridge's token lacks a scope it needs; give the bridge a token with that scope (%s)", status, keys)
	case e.status == http.StatusForbidden:
		return fmt.Sprintf("the server refused the request: %s (the bridge's token is %s)", status, keys)
	case e.token:
		return fmt.Sprintf("the server refused the bridge's token: %s; give the bridge a token it takes (%s)", status, keys)
	}
	return fmt.Sprintf("the server wants a token and the bridge has none: %s; give the bridge one (%s)", status, keys)
}

// parseChallenge takes error, error_description and scope of the first
// Bearer challenge (RFC 6750 section 3) among values, parsed by the
// go-sdk's oauthex.ParseWWWAuthenticate (a Bearer challenge after another
// scheme's is found, and another challenge's parameters are not taken),
// each cut at 200 bytes (the server's text reaches the calls' callers).
// A header that does not parse gives nothing.
func parseChallenge(values []string) map[string]string {
	out := map[string]string{}
	cs, err := oauthex.ParseWWWAuthenticate(values)
	if err != nil {
		return out
	}
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		for _, k := range []string{"error", "error_description", "scope"} {
			if val, ok := c.Params[k]; ok {
				out[k] = cutText(val)
			}
		}
		break
	}
	return out
}
