package trust

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestHugeRSAKeyRefused (no defect): a JWKS (1 MiB at most) can
// hold an RSA key of millions of bits; were it taken, every card whose
// signature names its kid — any junk a remote card server serves, at
// every refresh — would cost a modular exponentiation on numbers that
// size, seconds to minutes of CPU each. go-jose refuses moduli past
// jose.MaxRSAModulusBits (4096): the key is left out and the set, with
// no other key, refused. This guards that bound (a go-jose upgrade, or a
// parse of JWKs that bypasses it).
func TestHugeRSAKeyRefused(t *testing.T) {
	n := make([]byte, 512<<10) // a 4 Mbit modulus
	if _, err := rand.Read(n); err != nil {
		t.Fatal(err)
	}
	n[0] |= 0x80
	n[len(n)-1] |= 1
	jwks := `{"keys":[{"kty":"RSA","kid":"huge","e":"AQAB","n":"` + base64.RawURLEncoding.EncodeToString(n) + `"}]}`
	_, err := ParseJWKS([]byte(jwks), abi.Verified, "jwks.json")
	if err == nil || !strings.Contains(err.Error(), "RSA modulus size") {
		t.Fatalf("a JWKS of one RSA key of %d bits: %v; want it refused for its modulus size", len(n)*8, err)
	}
}
