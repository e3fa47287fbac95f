package trust

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAlgRefusalNamesKeyFile: a card signed with EdDSA checked against a
// key set whose key of that kid is an ES256 one (keys rotated from one
// algorithm to another under the same --kid, or the wrong --jwks file) was
// refused as `key "dup" is for alg "ES256" but the card is signed with
// "EdDSA"`, without the file the key came from, which the expired-key and
// tampered-card refusals name. The algorithm refusals name it now.
func TestAlgRefusalNamesKeyFile(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "dup")
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateKey("ES256", "dup")
	if err != nil {
		t.Fatal(err)
	}
	card, err := SignCard([]byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), signer)
	if err != nil {
		t.Fatal(err)
	}
	for name, alg := range map[string]string{"jwk alg": "ES256", "key type": ""} {
		pub := other.PublicJWK()
		pub.Algorithm = alg
		jwks, err := MarshalJWKS(pub)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := ParseJWKS(jwks, abi.Verified, "keys/other.json")
		if err != nil {
			t.Fatal(err)
		}
		store := NewKeyStore(nil)
		store.Add(keys...)
		_, err = VerifyCard(context.Background(), card, store)
		if !errors.Is(err, ErrAlgorithm) || !strings.Contains(err.Error(), "keys/other.json") {
			t.Errorf("%s: err = %v, want ErrAlgorithm naming keys/other.json", name, err)
		}
	}
}

// TestRotatedKidRefusalBlamesMatchingKey: a set holding two keys of one
// kid (an EdDSA key, expired, and the ES256 key that replaced it under the
// same --kid) refused a card the EdDSA key signed as "key is for alg ES256
// but the card is signed with EdDSA" when the ES256 key came first: the
// first key's refusal was reported, whichever it was. The refusal of the
// key that fits the card's algorithm wins now: its key expired.
func TestRotatedKidRefusalBlamesMatchingKey(t *testing.T) {
	old, err := GenerateKey("EdDSA", "dup")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := GenerateKey("ES256", "dup")
	if err != nil {
		t.Fatal(err)
	}
	card, err := SignCard([]byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), old)
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]SigningKey{{cur, old}, {old, cur}} {
		jwks, err := MarshalJWKS(order[0].PublicJWK(), order[1].PublicJWK())
		if err != nil {
			t.Fatal(err)
		}
		keys, err := ParseJWKS(jwks, abi.Verified, "rot.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.JWK.Algorithm == "EdDSA" {
				k.Expires = time.Now().Add(-time.Hour)
			}
		}
		store := NewKeyStore(nil)
		store.Add(keys...)
		_, err = VerifyCard(context.Background(), card, store)
		if !errors.Is(err, ErrKeyExpired) {
			t.Errorf("%s key first: err = %v, want the EdDSA key's expiry", order[0].Algorithm, err)
		}
	}
}
