package trust

import (
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCompactAlgMismatchSpeaksOfToken: a signed audit anchor checked against
// a key set whose key of that kid is of another algorithm (keys rotated
// from EdDSA to ES256 under the same --kid) was refused as `key "dup" is
// for alg "ES256" but the card is signed with "EdDSA"`: no card was
// involved. The refusal now speaks of the signed token, as the rest of
// VerifyCompact's errors do, and still wraps ErrAlgorithm.
func TestCompactAlgMismatchSpeaksOfToken(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "dup")
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateKey("ES256", "dup")
	if err != nil {
		t.Fatal(err)
	}
	for name, jwk := range map[string]func() []byte{
		"jwk alg": func() []byte { j, _ := MarshalJWKS(other.PublicJWK()); return j },
		"key type": func() []byte {
			pub := other.PublicJWK()
			pub.Algorithm = ""
			j, _ := MarshalJWKS(pub)
			return j
		},
	} {
		keys, err := ParseJWKS(jwk(), abi.Verified, "keys.json")
		if err != nil {
			t.Fatal(err)
		}
		tok, err := SignCompact([]byte(`{"seq":1}`), "x-test+jws", signer)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = VerifyCompact(tok, "x-test+jws", keys)
		if !errors.Is(err, ErrAlgorithm) {
			t.Fatalf("%s: err = %v, want ErrAlgorithm", name, err)
		}
		if strings.Contains(err.Error(), "card") || !strings.Contains(err.Error(), "token") {
			t.Errorf("%s: err = %q, want it to speak of the signed token, not a card", name, err)
		}
	}
}
