package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/aios-host/aios-host/internal/origin"

	"github.com/aios-host/aios-host/internal/wire"
)

// OAuth is a URL server's `oauth:` entry: the bridge gets its bearer token
// from an OAuth 2.1 authorization server with the client credentials grant
// (RFC 6749 §4.4; MCP's ext-auth SEP-1046), for a server that takes no
// long-lived token. With token_url the bridge asks that endpoint for a
// token before its first request; without it, the first 401 leads it
// through the server's Protected Resource Metadata (RFC 9728) and its
// authorization server's metadata (RFC 8414) to the token endpoint (the
// go-sdk's extauth.ClientCredentialsHandler). A token is reused until it
// expires, and asked for again when the server answers 401 (a revoked
// token) or 403 insufficient_scope (with the scopes the challenge names).
//
//	oauth:
//	  client_id: aios-host
//	  client_secret_env: SEARCH_CLIENT_SECRET   # or client_secret: "..."
//	  scopes: [search:read]                     # asked for (default: what the server names)
//	  token_url: https://auth.example.com/token # skip discovery (optional)
//	  issuer: https://auth.example.com          # the authorization server discovery may lead to
//
// The client secret goes to the token endpoint of token_url, or of the
// authorization server whose issuer is `issuer`, by default the server
// URL's own origin: a server whose metadata names another authorization
// server cannot have the secret sent there unless the operator says so.
type OAuth struct {
	ClientID        string   `yaml:"client_id"`
	ClientSecret    string   `yaml:"client_secret"`
	ClientSecretEnv string   `yaml:"client_secret_env"`
	Scopes          []string `yaml:"scopes"`
	TokenURL        string   `yaml:"token_url"`
	Issuer          string   `yaml:"issuer"`
}

// check checks an oauth entry of a URL server.
func (o *OAuth) check() error {
	switch {
	case o.ClientID == "":
		return errors.New("oauth.client_id: missing: the client credentials grant needs the client's id")
	case o.ClientSecret == "" && o.ClientSecretEnv == "":
		return errors.New("oauth: needs client_secret_env (or client_secret): the client credentials grant is for a confidential client")
	case o.ClientSecret != "" && o.ClientSecretEnv != "":
		return errors.New("oauth: has both client_secret and client_secret_env; give one")
	}
	for _, k := range []struct{ key, v string }{{"token_url", o.TokenURL}, {"issuer", o.Issuer}} {
		if k.v == "" {
			continue
		}
		u, err := url.Parse(k.v)
		if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && origin.LoopbackHost(u.Host))) {
			return fmt.Errorf("oauth.%s %q: want an https:// URL (http:// only to a loopback address): the client secret is sent there", k.key, k.v)
		}
	}
	for i, s := range o.Scopes {
		if s == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
			return fmt.Errorf("oauth.scopes[%d] %q: a scope is one token without spaces, quotes or backslashes (RFC 6749 §3.3)", i, s)
		}
	}
	return nil
}

// secret returns the client secret.
func (o *OAuth) secret() (string, error) {
	return literalOrEnv(o.ClientSecret, "oauth.client_secret_env", o.ClientSecretEnv)
}

// oauthTimeout bounds one exchange with the authorization server
// (metadata or a token).
const oauthTimeout = 30 * time.Second

// oauthTransport adds the bearer token the bridge holds from its
// authorization server to every request to the MCP server's origin, and
// on a 401 (or a 403 insufficient_scope) gets a new token and sends the
// request once more. Its errors (the authorization server unreachable, the
// credentials refused) are the request's, as authTransport's are.
type oauthTransport struct {
	base   http.RoundTripper
	server string
	home   *url.URL
	ctx    context.Context // the bridge's: token refreshes outlive a request
	secret string          // blanked out of the authorization server's words
	asked  *lastAsked      // the authorization server's URL the bridge asked last
	// waiting counts the token exchanges under way (await).
	waiting atomic.Int32

	mu      sync.Mutex
	handler auth.OAuthHandler
	gen     int // how many times the handler was authorized

	// sent are the last access tokens sent (newest last): a server that
	// quotes one in a failed call has it taken out (redactToken).
	sentMu sync.Mutex
	sent   []string
}

// maxSentTokens is how many access tokens sentTokens keeps: the current
// one and those it replaced that calls still in flight may have carried.
const maxSentTokens = 4

// noteSent records tok as sent to the server.
func (t *oauthTransport) noteSent(tok string) {
	if tok == "" {
		return
	}
	t.sentMu.Lock()
	defer t.sentMu.Unlock()
	if n := len(t.sent); n > 0 && t.sent[n-1] == tok {
		return
	}
	t.sent = append(t.sent, tok)
	if len(t.sent) > maxSentTokens {
		t.sent = append(t.sent[:0], t.sent[len(t.sent)-maxSentTokens:]...)
	}
}

// sentTokens returns the access tokens last sent to the server.
func (t *oauthTransport) sentTokens() []string {
	t.sentMu.Lock()
	defer t.sentMu.Unlock()
	return slices.Clone(t.sent)
}

// newOAuthTransport builds the transport of server name's oauth entry o,
// whose requests (to the MCP server, and to its authorization server)
// go through base.
func newOAuthTransport(ctx context.Context, name string, o *OAuth, home *url.URL, base http.RoundTripper) (*oauthTransport, error) {
	secret, err := o.secret()
	if err != nil {
		return nil, err
	}
	asked := &lastAsked{base: base}
	hc := &http.Client{Transport: asked, Timeout: oauthTimeout,
		// A 307 or 308 carries the request's body, the client secret in
		// it, to wherever it points: redirects stay within the origin
		// the bridge was sent to (token_url, or the issuer's metadata).
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if !origin.Same(req.URL, via[0].URL) {
				return fmt.Errorf("the authorization server at %s://%s redirected the bridge to %s://%s, another origin, where the client secret of mcp.servers.%s.oauth is not sent (set oauth.token_url or oauth.issuer to it if you trust it)",
					via[0].URL.Scheme, via[0].URL.Host, req.URL.Scheme, req.URL.Host, name)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}}
	t := &oauthTransport{base: base, server: name, home: home, ctx: ctx, secret: secret, asked: asked}
	if o.TokenURL != "" {
		t.handler = &fixedTokenURL{ctx: context.WithValue(ctx, oauth2.HTTPClient, hc),
			cfg: clientcredentials.Config{ClientID: o.ClientID, ClientSecret: secret, TokenURL: o.TokenURL, Scopes: o.Scopes}}
		return t, nil
	}
	issuer := o.Issuer
	if issuer == "" {
		issuer = (&url.URL{Scheme: home.Scheme, Host: home.Host}).String()
	}
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: o.ClientID, Issuer: issuer,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}},
		HTTPClient: hc,
	})
	if err != nil {
		return nil, err
	}
	t.handler = &scopedHandler{OAuthHandler: h, scopes: o.Scopes}
	return t, nil
}

func (t *oauthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !origin.Same(r.URL, t.home) {
		return t.base.RoundTrip(r)
	}
	var gen int
	var tok string
	err := t.await(r.Context(), func() (err error) { gen, tok, err = t.token(); return err })
	if err != nil {
		return nil, err
	}
	t.noteSent(tok)
	resp, err := t.base.RoundTrip(withBearer(r, tok))
	if err != nil || !challenged(resp) || (r.Body != nil && r.Body != http.NoBody && r.GetBody == nil) {
		return resp, err
	}
	if err := t.await(r.Context(), func() error { return t.reauthorize(r, resp, gen) }); err != nil {
		return nil, err
	}
	r2 := r.Clone(r.Context())
	if r.GetBody != nil {
		if r2.Body, err = r.GetBody(); err != nil {
			return nil, err
		}
	}
	if err := t.await(r.Context(), func() (err error) { _, tok, err = t.token(); return err }); err != nil {
		return nil, err
	}
	t.noteSent(tok)
	return t.base.RoundTrip(withBearer(r2, tok))
}

// await runs exchange (getting a token, which may ask the authorization
// server) until it ends or ctx, the request's, does: the exchange keeps
// the bridge's context and oauthTimeout (its token is kept for the next
// request), the request does not wait past its own deadline for it.
func (t *oauthTransport) await(ctx context.Context, exchange func() error) error {
	done := make(chan error, 1)
	t.waiting.Add(1)
	go func() {
		defer t.waiting.Add(-1)
		done <- exchange()
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if w, ok := ctx.Value(tokenWaitKey{}).(*atomic.Bool); ok {
			w.Store(true)
		}
		return fmt.Errorf("the request to mcp server %s ended while the bridge waited for an OAuth token from its authorization server (mcp.servers.%s.oauth): %w", t.server, t.server, context.Cause(ctx))
	}
}

// tokenWaitKey keys, on a call's context, whether one of its requests
// ended while await waited for a token: the go-sdk answers such a call
// with the context's error alone, and callError said the server had not
// answered a request that was never sent.
type tokenWaitKey struct{}

// withTokenWait is ctx noting for waitedForToken.
func withTokenWait(ctx context.Context) context.Context {
	return context.WithValue(ctx, tokenWaitKey{}, new(atomic.Bool))
}

// waitedForToken says whether a request of ctx (withTokenWait) ended while
// the bridge waited for an OAuth token.
func waitedForToken(ctx context.Context) bool {
	w, ok := ctx.Value(tokenWaitKey{}).(*atomic.Bool)
	return ok && w.Load()
}

// token returns the bearer token to send ("" before the first
// authorization) and the generation it belongs to.
func (t *oauthTransport) token() (int, string, error) {
	t.mu.Lock()
	gen := t.gen
	ts, err := t.handler.TokenSource(t.ctx)
	t.mu.Unlock()
	if err != nil || ts == nil {
		return gen, "", t.wrap(err)
	}
	tok, err := ts.Token()
	if err != nil {
		return gen, "", t.wrap(err)
	}
	return gen, tok.AccessToken, nil
}

// reauthorize gets a new token after resp (a 401 or 403) answered a
// request sent with generation gen's token; when another request did so
// meanwhile, that token is the one to try.
func (t *oauthTransport) reauthorize(r *http.Request, resp *http.Response, gen int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen != gen {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil
	}
	// The bridge's context, not one that ends with this request: the
	// handler keeps it for the token source's later refreshes (each
	// request to the authorization server is bounded by oauthTimeout).
	if err := t.handler.Authorize(t.ctx, r, resp); err != nil {
		return t.wrap(err)
	}
	t.gen++
	return nil
}

// wrap says whose OAuth exchange failed, and how.
func (t *oauthTransport) wrap(err error) error {
	if err == nil {
		return nil
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		what := re.ErrorCode
		if re.ErrorDescription != "" {
			what += ": " + cutText(t.hide(re.ErrorDescription))
		}
		url := ""
		if re.Response != nil && re.Response.Request != nil {
			url = " " + displayURL(re.Response.Request.URL.String())
		}
		if re.ErrorCode == "" && re.Response != nil {
			// No OAuth error: a 404 or a 502 is no refusal of the
			// credentials, and may be no token endpoint at all.
			return fmt.Errorf("the bridge could not get an OAuth token for mcp server %s (mcp.servers.%s.oauth): the token endpoint%s answered %s, with no OAuth error or token (is it the authorization server's token endpoint?)",
				t.server, t.server, url, re.Response.Status)
		}
		return fmt.Errorf("the bridge's OAuth client credentials (mcp.servers.%s.oauth) were refused by the token endpoint%s: %s", t.server, url, what)
	}
	msg := t.hide(err.Error())
	if strings.Contains(msg, "does not match pre-registered credentials issuer") {
		msg += fmt.Sprintf(" (the client secret is sent only to the authorization server of mcp.servers.%s.oauth.issuer, by default the server url's origin: set issuer, or token_url, to the one the server names if you trust it with the secret)", t.server)
	}
	if u := t.askedURL(); u != "" && !strings.Contains(msg, u) {
		// An answer the oauth2 package could not read (a token endpoint
		// answering 200 with an HTML page: "oauth2: cannot parse json")
		// names no URL: the operator is to learn which one answered.
		msg += " (asking " + u + ")"
	}
	return fmt.Errorf("the bridge could not get an OAuth token for mcp server %s (mcp.servers.%s.oauth): %s", t.server, t.server, msg)
}

// tokenWait is what a connect that has not finished is waiting for when
// it waits for an OAuth token (", waiting for an OAuth token from …"),
// else "" (also for a nil t).
func (t *oauthTransport) tokenWait() string {
	if t == nil || t.waiting.Load() == 0 {
		return ""
	}
	asked := ""
	if u := t.askedURL(); u != "" {
		asked = " (asking " + u + ")"
	}
	return fmt.Sprintf(": the bridge is waiting for an OAuth token from the server's authorization server%s (mcp.servers.%s.oauth)", asked, t.server)
}

// askedURL is the URL of the authorization server the bridge asked last
// ("" for none, or a nil t).
func (t *oauthTransport) askedURL() string {
	if t == nil {
		return ""
	}
	return t.asked.url()
}

// lastAsked is the transport of the bridge's requests to an authorization
// server (its metadata, its token endpoint): it keeps the URL of the last
// one, which an error of the oauth2 package does not always name.
type lastAsked struct {
	base http.RoundTripper
	last atomic.Pointer[string]
}

func (l *lastAsked) RoundTrip(r *http.Request) (*http.Response, error) {
	u := displayURL(r.URL.String())
	l.last.Store(&u)
	return l.base.RoundTrip(r)
}

// url is the URL of the last request (shown without its query), or "".
func (l *lastAsked) url() string {
	if l == nil {
		return ""
	}
	if u := l.last.Load(); u != nil {
		return *u
	}
	return ""
}

// hide blanks the client secret out of s, an authorization server's
// words (which may quote the request back), as sent or form-encoded.
func (t *oauthTransport) hide(s string) string {
	if t.secret == "" {
		return s
	}
	for _, v := range []string{t.secret, url.QueryEscape(t.secret), url.PathEscape(t.secret)} {
		s = strings.ReplaceAll(s, v, "[the client secret]")
	}
	return s
}

// cutText cuts a server's text at 200 bytes (it reaches callers).
func cutText(s string) string { return wire.CutText(s, 200, "…") }

// challenged says whether resp asks for (another) token: a 401, or a 403
// insufficient_scope (MCP's step-up).
func challenged(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return true
	case http.StatusForbidden:
		return parseChallenge(resp.Header.Values("WWW-Authenticate"))["error"] == "insufficient_scope"
	}
	return false
}

func withBearer(r *http.Request, tok string) *http.Request {
	if tok == "" {
		return r
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

// fixedTokenURL is the handler of an entry with token_url: a token is
// asked for before the first request, and again after a 401.
type fixedTokenURL struct {
	ctx context.Context
	cfg clientcredentials.Config
	ts  oauth2.TokenSource
}

func (f *fixedTokenURL) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if f.ts == nil {
		f.ts = f.cfg.TokenSource(f.ctx)
	}
	return f.ts, nil
}

func (f *fixedTokenURL) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if s := parseChallenge(resp.Header.Values("WWW-Authenticate"))["scope"]; s != "" {
		f.cfg.Scopes = unionScopes(f.cfg.Scopes, strings.Fields(s))
	}
	f.ts = f.cfg.TokenSource(f.ctx) // a new token, not the cached one
	_, err := f.ts.Token()
	return err
}

// scopedHandler asks, on the first authorization, for the scopes of the
// entry besides those the server names (extauth asks for the
// challenge's, or the resource metadata's scopes_supported).
type scopedHandler struct {
	auth.OAuthHandler
	scopes []string
}

func (s *scopedHandler) Authorize(ctx context.Context, r *http.Request, resp *http.Response) error {
	if len(s.scopes) > 0 {
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		var have []string
		for _, c := range cs {
			if c.Scheme == "bearer" {
				have = strings.Fields(c.Params["scope"])
				break
			}
		}
		resp.Header = resp.Header.Clone()
		resp.Header.Del("WWW-Authenticate")
		resp.Header.Set("WWW-Authenticate", bearerChallenge(cs, unionScopes(have, s.scopes)))
	}
	return s.OAuthHandler.Authorize(ctx, r, resp)
}

// bearerChallenge is the Bearer challenge of cs with its scope set to
// scopes (resource_metadata kept).
func bearerChallenge(cs []oauthex.Challenge, scopes []string) string {
	parts := []string{`scope="` + strings.Join(scopes, " ") + `"`}
	for _, c := range cs {
		if c.Scheme == "bearer" {
			if m := c.Params["resource_metadata"]; m != "" && !strings.ContainsAny(m, `"\`) {
				parts = append(parts, `resource_metadata="`+m+`"`)
			}
			break
		}
	}
	return "Bearer " + strings.Join(parts, ", ")
}

func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
