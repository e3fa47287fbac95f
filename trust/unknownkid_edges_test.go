package trust

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestUnknownKidNamesKeysLookedIn: a card whose key_id no trusted key has
// (signed with the old key after a rotation, or checked against the wrong
// --jwks file) was refused as `no trusted key has key id "X"`, naming
// neither the key files looked in nor the key ids they hold, so the
// operator could not tell a wrong file from a wrong kid. The refusal now
// names each key file with its key ids.
func TestUnknownKidNamesKeysLookedIn(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "old-key")
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := GenerateKey("EdDSA", "new-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := MarshalJWKS(trusted.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParseJWKS(jwks, abi.Verified, "keys/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	store := NewKeyStore(nil)
	store.Add(keys...)
	card, err := SignCard([]byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), signer)
	if err != nil {
		t.Fatal(err)
	}
	_, err = VerifyCard(context.Background(), card, store)
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("err = %v, want ErrUnknownKey", err)
	}
	for _, want := range []string{`"old-key"`, "keys/jwks.json", `"new-key"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
