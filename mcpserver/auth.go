package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aios-host/aios-host/internal/fsperm"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Accepted JWS algorithms: asymmetric only (a shared secret would let the
// resource server mint tokens).
var tokenAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// maxTokenBytes bounds a bearer token.
const maxTokenBytes = 16 << 10

// maxCachedTokens bounds the verified-token cache.
const maxCachedTokens = 1024

// errToken is a token problem reported as 401 invalid_token; its message is
// safe to show the client.
type errToken struct{ msg string }

func (e *errToken) Error() string { return e.msg }

// errScope is a valid token without a mapped scope: 403 insufficient_scope.
var errScope = errors.New("the token holds none of the scopes this server maps to an agent")

// identity is who a verified token speaks for.
type identity struct {
	agent   string
	subject string
	scopes  []string
	expiry  time.Time
	keysAt  time.Time // when the keys it was verified with were fetched
}

// verifier checks bearer JWTs against the issuer's JWKS.
type verifier struct {
	cfg      HTTPConfig
	resource func() string // default audience when cfg.Audience is empty
	client   *http.Client
	now      func() time.Time

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetchedAt time.Time
	triedAt   time.Time  // the last fetch, good or failed
	fetches   int        // fetches ended
	fetching  int        // requests fetching, or waiting to (fetchMu)
	fetched   *sync.Cond // on mu: broadcast when one of them is done
	fetchErr  error      // of the last one
	cache     map[[32]byte]identity

	fetchMu sync.Mutex // one JWKS fetch at a time (taken before mu)
}

func newVerifier(cfg HTTPConfig, resource func() string, client *http.Client) *verifier {
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	v := &verifier{cfg: cfg, resource: resource, client: client, now: time.Now, cache: map[[32]byte]identity{}}
	v.fetched = sync.NewCond(&v.mu)
	return v
}

// audience is what a token's "aud" must contain.
func (v *verifier) audience() []string {
	if len(v.cfg.Audience) > 0 {
		return v.cfg.Audience
	}
	if r := v.resource(); r != "" {
		return []string{r}
	}
	return nil
}

// verify checks token and maps it to an agent.
func (v *verifier) verify(ctx context.Context, token string) (identity, error) {
	if len(token) > maxTokenBytes {
		return identity{}, &errToken{"token too long"}
	}
	sum := sha256.Sum256([]byte(token))
	now := v.now()
	v.mu.Lock()
	if id, ok := v.cache[sum]; ok {
		// Good while the keys it was verified with are the keys held and
		// not stale: past that it is verified again (a key the issuer
		// removed stops its tokens at the next fetch, not at their exp).
		if v.keys == nil || !id.keysAt.Equal(v.fetchedAt) || now.Sub(v.fetchedAt) > DefaultJWKSRefresh {
			delete(v.cache, sum)
		} else {
			v.mu.Unlock()
			if now.After(id.expiry.Add(v.cfg.ClockSkew)) {
				return identity{}, &errToken{"token expired"}
			}
			return id, nil
		}
	}
	v.mu.Unlock()

	tok, err := jwt.ParseSigned(token, tokenAlgs)
	if err != nil {
		return identity{}, &errToken{"malformed token: " + err.Error()}
	}
	if len(tok.Headers) != 1 {
		return identity{}, &errToken{"token must have exactly one signature"}
	}
	kid := tok.Headers[0].KeyID
	keys, keysAt, err := v.keysFor(ctx, kid)
	if err != nil {
		return identity{}, err
	}
	// The signature is checked first and the claims decoded after, so that
	// a claim of an unexpected shape is not reported as a bad signature.
	var payload json.RawMessage
	verified := false
	for _, k := range keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if err := tok.Claims(k.Key, &payload); err == nil {
			verified = true
			break
		}
	}
	if !verified {
		return identity{}, &errToken{"token signature does not verify with the issuer's keys"}
	}
	var claims jwt.Claims
	if err := json.Unmarshal(payload, &claims); err != nil {
		return identity{}, &errToken{"token claims: " + err.Error()}
	}
	scopes, err := scopeClaims(payload)
	if err != nil {
		return identity{}, &errToken{err.Error()}
	}
	if claims.Expiry == nil {
		return identity{}, &errToken{"token has no exp claim"}
	}
	// RFC 9068 §2.2 requires sub. The host names the caller by it (audit
	// principal "oauth:SUB") and the go-sdk binds a session to it: tokens
	// without one would all be the same user, able to use each other's
	// sessions.
	if claims.Subject == "" {
		return identity{}, &errToken{"token has no sub claim (RFC 9068 requires one: it names the caller in the audit log and owns the session)"}
	}
	aud := v.audience()
	if len(aud) == 0 {
		return identity{}, &errToken{"no audience configured: set mcp.http.resource or mcp.http.audience"}
	}
	exp := jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: aud, Time: now}
	if err := claims.ValidateWithLeeway(exp, v.cfg.ClockSkew); err != nil {
		switch {
		case errors.Is(err, jwt.ErrExpired):
			return identity{}, &errToken{"token expired"}
		case errors.Is(err, jwt.ErrInvalidAudience):
			return identity{}, &errToken{fmt.Sprintf("token audience %v is not this resource (want one of %v)", []string(claims.Audience), aud)}
		case errors.Is(err, jwt.ErrInvalidIssuer):
			return identity{}, &errToken{fmt.Sprintf("token issuer %q is not %q", claims.Issuer, v.cfg.Issuer)}
		default:
			return identity{}, &errToken{"token rejected: " + err.Error()}
		}
	}
	id := identity{subject: claims.Subject, scopes: scopes, expiry: claims.Expiry.Time(), keysAt: keysAt}
	for _, m := range v.cfg.Scopes {
		if slices.Contains(scopes, m.Scope) {
			id.agent = m.Agent
			break
		}
	}
	if id.agent == "" {
		id.agent = v.cfg.Agent
	}
	if id.agent == "" {
		return identity{}, errScope
	}
	v.mu.Lock()
	if len(v.cache) >= maxCachedTokens {
		clear(v.cache)
	}
	v.cache[sum] = id
	v.mu.Unlock()
	return id, nil
}

// scopeClaims are the scopes of a token's claims: "scope" (RFC 8693 §4.2:
// a space-separated string; some servers write an array) and "scp" (an
// array at Okta, a space-separated string at Microsoft Entra ID), each
// taken in either shape.
func scopeClaims(payload json.RawMessage) ([]string, error) {
	var c struct {
		Scope json.RawMessage `json:"scope"`
		Scp   json.RawMessage `json:"scp"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("token claims: %v", err)
	}
	var out []string
	for _, claim := range []struct {
		name string
		raw  json.RawMessage
	}{{"scope", c.Scope}, {"scp", c.Scp}} {
		if len(claim.raw) == 0 || string(claim.raw) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(claim.raw, &s) == nil {
			out = append(out, strings.Fields(s)...)
			continue
		}
		var l []string
		if json.Unmarshal(claim.raw, &l) != nil {
			return nil, fmt.Errorf("token claim %q is %s: want a space-separated string of scopes or an array of them", claim.name, shortJSON(claim.raw))
		}
		out = append(out, l...)
	}
	return out, nil
}

// shortJSON is raw for a message: compacted, cut to 40 characters.
func shortJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "not JSON"
	}
	if r := []rune(b.String()); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return b.String()
}

// keysFor returns the keys that may have signed a token with kid, and when
// they were fetched, fetching the JWKS when it is stale or does not know
// kid (at most every 10 s).
//
// The fetch (up to the client's 5 s timeout) runs without v.mu, which
// every token check takes: a token with an unknown kid, which anyone can
// send, must not stall the checks of cached tokens and known keys. Fetches
// run one at a time (fetchMu); a request that waited for another's fetch
// uses its outcome rather than fetching again, and a token of a key id the
// keys lack, arriving while a fetch is under way (the issuer rotated its
// keys: the first tokens of the new one come together), waits for it
// rather than being refused.
func (v *verifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, time.Time, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	pick := func() []jose.JSONWebKey {
		if v.keys == nil {
			return nil
		}
		if kid != "" {
			return v.keys.Key(kid)
		}
		return v.keys.Keys
	}
	stale := v.keys == nil || v.now().Sub(v.fetchedAt) > DefaultJWKSRefresh
	ks := pick()
	due := v.keys == nil || v.now().Sub(v.triedAt) > 10*time.Second
	if len(ks) == 0 && !due && v.fetching > 0 {
		// A key the keys lack (the issuer may just have added it) while a
		// fetch is under way: its outcome is waited for, not refused.
		for v.fetching > 0 {
			v.fetched.Wait()
		}
		ks = pick()
		if err := v.fetchErr; err != nil && len(ks) == 0 {
			return nil, time.Time{}, fmt.Errorf("issuer keys: %w", err)
		}
	}
	if (len(ks) == 0 || stale) && due {
		v.triedAt = v.now()
		v.fetching++
		gen := v.fetches
		v.mu.Unlock()
		v.fetchMu.Lock()
		v.mu.Lock()
		if v.fetches == gen { // no fetch ended while this one waited
			v.mu.Unlock()
			// The fetch is every waiting request's: it runs to its own
			// timeout, not to the end of the request that started it (a
			// client that hung up would fail it for all, and the next
			// fetch is 10 s away).
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimeout)
			set, err := v.fetch(fctx)
			cancel()
			v.mu.Lock()
			v.fetches++
			v.fetchErr = err
			if err == nil {
				v.keys, v.fetchedAt = set, v.now()
			}
		}
		v.fetching--
		v.fetched.Broadcast()
		err := v.fetchErr
		v.fetchMu.Unlock()
		ks = pick()
		if err != nil {
			if ks != nil && v.now().Sub(v.fetchedAt) <= DefaultJWKSMaxStale {
				return ks, v.fetchedAt, nil // keep serving with the keys we have, for a while
			}
			return nil, time.Time{}, fmt.Errorf("issuer keys: %w", err)
		}
	}
	if v.keys != nil && v.now().Sub(v.fetchedAt) > DefaultJWKSMaxStale {
		return nil, time.Time{}, fmt.Errorf("issuer keys: fetched at %s, more than %s ago, and not fetched since", v.fetchedAt.UTC().Format(time.RFC3339), DefaultJWKSMaxStale)
	}
	if len(ks) == 0 {
		return nil, time.Time{}, &errToken{fmt.Sprintf("token key id %q is not among the issuer's keys", kid)}
	}
	return ks, v.fetchedAt, nil
}

// jwksFetchTimeout bounds a fetch of the issuer's keys (besides the HTTP
// client's own timeout, 5 s by default).
const jwksFetchTimeout = 10 * time.Second

// maxJWKSBytes bounds a key set, read from jwks_file or jwks_url.
const maxJWKSBytes = 1 << 20

func (v *verifier) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	var data []byte
	if v.cfg.JWKSFile != "" {
		// Checked at every fetch: it may have been made writable since
		// the start.
		if err := jwksFileSafe(v.cfg.JWKSFile); err != nil {
			return nil, err
		}
		// A regular file only, bounded: a FIFO with no writer would hold
		// fetchMu, and every token of a new key would wait behind it.
		b, err := fsperm.ReadRegular(v.cfg.JWKSFile, maxJWKSBytes)
		if err != nil {
			return nil, fmt.Errorf("jwks_file: %w", err)
		}
		data = b
	} else {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.cfg.JWKSURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := v.client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", v.cfg.JWKSURL, resp.Status)
		}
		if data, err = io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes)); err != nil {
			return nil, err
		}
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	pub := set.Keys[:0]
	for _, k := range set.Keys {
		if k.Valid() && !k.IsPublic() {
			k = k.Public()
		}
		if k.Valid() && k.IsPublic() {
			pub = append(pub, k)
		}
	}
	set.Keys = pub
	return &set, nil
}

// jwksFileSafe refuses an mcp.http.jwks_file that another account could
// write, as discovery.keys refuses such a key file (docs/trust.md): the
// file itself or a folder on its way (as named and as resolved) writable by
// group or others (a sticky folder such as /tmp excepted), or owned by
// another user than root or the host's. Whoever can write it adds a key of
// their own and mints tokens of any scope, so acts as any agent
// mcp.http.scopes maps. A file that cannot be found passes: the read says
// so.
func jwksFileSafe(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if err := fsperm.OwnedSafely(path, st); err != nil {
		return fmt.Errorf("jwks_file %s is not safe: %v: another account could add a key and mint tokens of any scope (chmod go-w, or chown it to this user)", path, err)
	}
	return nil
}

// tokenInfoKey carries a verified identity from requireToken to the
// go-sdk middleware that puts it into the MCP request.
type tokenInfoKey struct{}

// requireToken is the OAuth 2.1 resource-server middleware: it answers 401
// with WWW-Authenticate (resource_metadata, and error="invalid_token" for a
// bad token) or 403 insufficient_scope, and otherwise hands the request on
// with an auth.TokenInfo whose Extra["agent"] names the agent. anonymous,
// when set, serves requests without Authorization as that agent.
func requireToken(v *verifier, metadataURL func(*http.Request) string, anonymous string, next http.Handler) http.Handler {
	// auth.RequireBearerToken stores TokenInfo where the go-sdk looks for
	// it; its verifier only reads back what we verified. It checks the
	// expiry again: with the same leeway (mcp.http.clock_skew), or it
	// would refuse, without a challenge, a token v took within it.
	var skew time.Duration
	if v != nil {
		skew = v.cfg.ClockSkew
	}
	inner := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		ti, _ := ctx.Value(tokenInfoKey{}).(*auth.TokenInfo)
		if ti == nil {
			return nil, auth.ErrInvalidToken
		}
		return ti, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: skew})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		challenge := func(status int, errCode, desc string) {
			p := []string{fmt.Sprintf("resource_metadata=%q", metadataURL(r))}
			if errCode != "" {
				p = append(p, fmt.Sprintf("error=%q", errCode), fmt.Sprintf("error_description=%q", strings.ReplaceAll(desc, `"`, "'")))
			}
			w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(p, ", "))
			http.Error(w, desc, status)
		}
		h := r.Header.Get("Authorization")
		if h == "" {
			if anonymous != "" {
				// A token's user is AGENT:SUBJECT, and "anonymous" is a valid
				// agent name: "(anonymous)" is none (config.ValidateAgentName),
				// so no token's user is the tokenless clients'.
				ti := &auth.TokenInfo{UserID: "(anonymous):" + anonymous, Extra: map[string]any{"agent": anonymous, "principal": "anonymous", "remote": r.RemoteAddr}}
				r.Header.Set("Authorization", "Bearer anonymous")
				inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, ti)))
				return
			}
			if v == nil {
				// No token could be verified either: the client (or the
				// newcomer reading its log) is told why nothing passes.
				challenge(http.StatusUnauthorized, "", "this resource needs an OAuth 2.1 bearer token, and this host verifies none: no token issuer is configured (mcp.http.issuer; mcp.http.anonymous_agent serves requests without one, for development)")
				return
			}
			challenge(http.StatusUnauthorized, "", "this resource needs an OAuth 2.1 bearer token")
			return
		}
		scheme, tok, ok := strings.Cut(h, " ")
		tok = strings.TrimSpace(tok)
		if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
			challenge(http.StatusUnauthorized, "invalid_request", "Authorization must be: Bearer <token>")
			return
		}
		if v == nil {
			challenge(http.StatusUnauthorized, "invalid_token", "no token issuer is configured (mcp.http.issuer)")
			return
		}
		id, err := v.verify(r.Context(), tok)
		if err != nil {
			var te *errToken
			switch {
			case errors.As(err, &te):
				challenge(http.StatusUnauthorized, "invalid_token", te.msg)
			case errors.Is(err, errScope):
				p := []string{fmt.Sprintf("resource_metadata=%q", metadataURL(r)), `error="insufficient_scope"`}
				if sc := scopeList(v.cfg.Scopes); sc != "" {
					p = append(p, fmt.Sprintf("scope=%q", sc))
				}
				w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(p, ", "))
				http.Error(w, err.Error(), http.StatusForbidden)
			default:
				http.Error(w, "token verification unavailable: "+err.Error(), http.StatusServiceUnavailable)
			}
			return
		}
		ti := &auth.TokenInfo{Scopes: id.scopes, Expiration: id.expiry, UserID: id.agent + ":" + id.subject,
			Extra: map[string]any{"agent": id.agent, "principal": "oauth:" + id.subject, "remote": r.RemoteAddr}}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, ti)))
	})
}

func scopeList(m []ScopeAgent) string {
	s := make([]string, 0, len(m))
	for _, x := range m {
		s = append(s, x.Scope)
	}
	return strings.Join(s, " ")
}
