package trust

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestInlineJWKWithOtherKidRefused: an inline `jwk` entry of discovery.keys
// with a `kid` that is not the key's own (`{trust: Verified, jwk: {kty: OKP,
// …}, kid: vendor-1}`, the JWK without a kid of its own, so its kid is its
// thumbprint) loaded without a word and trusted nothing: the entry's kid
// kept no key, and every card signed by vendor-1 was "unknown signing key".
// A jwks file entry whose kid matches none of its keys is an error naming
// the kid; the inline entry now is too, naming the kid the JWK has.
func TestInlineJWKWithOtherKidRefused(t *testing.T) {
	key, err := GenerateKey("EdDSA", "vendor-1")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	jwk := map[string]any{}
	if err := json.Unmarshal(raw, &jwk); err != nil {
		t.Fatal(err)
	}
	// The entry's kid matching the JWK's keeps it.
	ks, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWK: jwk, KeyID: "vendor-1"}}, "", nil)
	if err != nil {
		t.Fatalf("kid matching the jwk's: %v", err)
	}
	if got, err := ks.Lookup(context.Background(), "vendor-1"); err != nil || len(got) != 1 {
		t.Fatalf("Lookup(vendor-1) = %v, %v; want the inline key", got, err)
	}
	delete(jwk, "kid")
	tp, err := Thumbprint(key.Key.Public())
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWK: jwk, KeyID: "vendor-1"}}, "", nil)
	if err == nil {
		t.Fatal("an inline jwk whose kid is not the entry's loaded, trusting no key")
	}
	for _, want := range []string{"[0]: ", `"vendor-1"`, tp} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	if errors.Is(err, ErrUnknownKey) {
		t.Errorf("error %v is a verification error, want a config one", err)
	}
}
