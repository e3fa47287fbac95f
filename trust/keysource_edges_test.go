package trust

import (
	"context"
	"errors"
	"strings"
	"testing"

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
