package trust

import (
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCompactUnknownKidNamesKeyFile: a signed audit anchor checked with a
// --jwks file that does not hold its key (the wrong file, or a key rotated
// out) was refused as `no key with kid "dup"`, naming neither the file
// looked in nor the key ids it holds. It names both now, as a card's
// unknown-key refusal does.
func TestCompactUnknownKidNamesKeyFile(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "dup")
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateKey("EdDSA", "other-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := MarshalJWKS(other.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParseJWKS(jwks, abi.Verified, "keys/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := SignCompact([]byte(`{"seq":1}`), "x-test+jws", signer)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = VerifyCompact(tok, "x-test+jws", keys)
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("err = %v, want ErrUnknownKey", err)
	}
	for _, want := range []string{`"dup"`, "keys/jwks.json", `"other-key"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
