package mcpserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// rotatingIssuer is an issuer whose JWKS (served slowly once rotated)
// gains a second key, k2, at rotate, and a verifier of its tokens on a
// clock of the test's.
type rotatingIssuer struct {
	*issuer
	k2      *ecdsa.PrivateKey
	v       *verifier
	fetched chan struct{}
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	now     time.Time
}

const rotAud = "http://aios.test/mcp"

func newRotatingIssuer(t *testing.T) *rotatingIssuer {
	t.Helper()
	is := newIssuer(t)
	k2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ri := &rotatingIssuer{issuer: is, k2: k2, fetched: make(chan struct{}, 16), now: time.Now(),
		keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri.fetched <- struct{}{}
		ri.mu.Lock()
		body, _ := json.Marshal(jose.JSONWebKeySet{Keys: ri.keys})
		rotated := len(ri.keys) > 1
		ri.mu.Unlock()
		if rotated {
			time.Sleep(300 * time.Millisecond) // a slow issuer
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	ri.v = newVerifier(HTTPConfig{Issuer: is.url, JWKSURL: srv.URL, Agent: "mcp"}, func() string { return rotAud }, nil)
	ri.v.now = func() time.Time { ri.mu.Lock(); defer ri.mu.Unlock(); return ri.now }
	if _, err := ri.v.verify(context.Background(), is.token(t, tokenOpts{aud: rotAud, scope: "s"})); err != nil {
		t.Fatal(err)
	}
	<-ri.fetched
	return ri
}

// rotate adds k2 to the JWKS, past the 10 s the verifier leaves between
// fetches.
func (ri *rotatingIssuer) rotate() {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	ri.keys = append(ri.keys, jose.JSONWebKey{Key: &ri.k2.PublicKey, KeyID: "k2", Algorithm: "ES256", Use: "sig"})
	ri.now = ri.now.Add(11 * time.Second)
}

// newKeyToken is a token of sub signed with k2.
func (ri *rotatingIssuer) newKeyToken(sub string) string {
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: ri.k2},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), "k2"))
	tok, _ := jwt.Signed(sig).Claims(jwt.Claims{Issuer: ri.url, Subject: sub, Audience: jwt.Audience{rotAud},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	return tok
}

// TestJWKSFetchWaitedFor: the issuer rotated its keys, and the first
// token of the new key makes the verifier fetch the JWKS. A second token
// of the new key arriving during that fetch was refused at once with 401
// invalid_token "token key id "k2" is not among the issuer's keys" (the
// fetch had just been tried, so it did not fetch, nor wait): its client,
// told its token is bad, starts its OAuth flow again. It now waits for the
// fetch under way and is verified with its outcome.
func TestJWKSFetchWaitedFor(t *testing.T) {
	ri := newRotatingIssuer(t)
	ri.rotate()
	first := make(chan error, 1)
	go func() { _, err := ri.v.verify(context.Background(), ri.newKeyToken("alice")); first <- err }()
	<-ri.fetched // the fetch is under way
	if _, err := ri.v.verify(context.Background(), ri.newKeyToken("bob")); err != nil {
		t.Errorf("a token of the new key, verified while another's fetch of the keys was under way: %v", err)
	}
	if err := <-first; err != nil {
		t.Errorf("the token that made the verifier fetch: %v", err)
	}
}

// TestJWKSFetchOutlivesItsRequester: the fetch of the JWKS that a
// token of a new key starts is every request's (those waiting for it take
// its outcome) but ran under the context of the request that started it:
// a client that hung up mid-fetch (anyone may send a token with a new kid)
// failed it ("issuer keys: context canceled"), and for the next 10 s every
// token of the issuer's new key was refused with 401 invalid_token. The
// fetch now runs to its own timeout whoever asked for it.
func TestJWKSFetchOutlivesItsRequester(t *testing.T) {
	ri := newRotatingIssuer(t)
	ri.rotate()
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan struct{})
	go func() { defer close(gone); _, _ = ri.v.verify(ctx, ri.newKeyToken("mallory")) }()
	<-ri.fetched // the fetch is under way
	cancel()     // and its client hangs up
	<-gone
	if _, err := ri.v.verify(context.Background(), ri.newKeyToken("alice")); err != nil {
		t.Errorf("a token of the new key, after another client hung up during the fetch of the keys: %v", err)
	}
}
