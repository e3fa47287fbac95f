package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// TestRemovedKeyStopsCachedTokens: an issuer that removes a key from
// its JWKS (it leaked) expects the tokens it signed to stop working once
// resource servers refetch the keys (every 10 min here). A token already
// seen was answered from the verifier's cache until its own exp — hours
// for some issuers — and a cache hit never refetched the keys. A token
// seen before the keys went stale is verified again against the keys
// fetched now.
func TestRemovedKeyStopsCachedTokens(t *testing.T) {
	ri := newRotatingIssuer(t) // k1 only, fetched once
	tok := ri.token(t, tokenOpts{aud: rotAud, scope: "s", exp: 3 * time.Hour})
	if _, err := ri.v.verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	// The issuer replaces k1 with k2; 11 minutes later the keys are stale.
	ri.mu.Lock()
	ri.keys = []jose.JSONWebKey{{Key: &ri.k2.PublicKey, KeyID: "k2", Algorithm: "ES256", Use: "sig"}}
	ri.now = ri.now.Add(11 * time.Minute)
	ri.mu.Unlock()
	_, err := ri.v.verify(context.Background(), tok)
	if err == nil || !strings.Contains(err.Error(), "not among the issuer's keys") {
		t.Errorf("a cached token of a key the issuer removed, after the keys went stale: %v, want refused", err)
	}
	// A token of the new key is good.
	if _, err := ri.v.verify(context.Background(), ri.newKeyToken("bob")); err != nil {
		t.Errorf("a token of the new key: %v", err)
	}
}
