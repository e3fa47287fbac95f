package trust

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKOfUnsupportedCurveNamesIt: a JWK on a curve or of a key type that
// cannot verify cards (OKP Ed448 or X25519, EC secp256k1, an unknown kty)
// was left out, and a set of only such keys refused, as "go-jose/go-jose:
// unsupported key type, format, curve, or RSA modulus size", which names
// neither the key's kty nor its curve. The reason names them and says
// which keys verify cards, as it does for a P-384 key or a short RSA key.
func TestJWKOfUnsupportedCurveNamesIt(t *testing.T) {
	x := `"x": "` + strings.Repeat("A", 43) + `"`
	for _, c := range []struct{ jwk, want string }{
		{`{"kty": "OKP", "crv": "Ed448", "kid": "a", "x": "` + strings.Repeat("A", 76) + `"}`, `kty "OKP" on curve "Ed448"`},
		{`{"kty": "OKP", "crv": "X25519", "kid": "a", ` + x + `}`, `kty "OKP" on curve "X25519"`},
		{`{"kty": "EC", "crv": "secp256k1", "kid": "a", ` + x + `, "y": "` + strings.Repeat("A", 43) + `"}`, `kty "EC" on curve "secp256k1"`},
		{`{"kty": "LWE", "kid": "a"}`, `kty "LWE"`},
	} {
		_, err := ParseJWKS([]byte(`{"keys": [`+c.jwk+`]}`), abi.Verified, "keys/vendor.json")
		if err == nil {
			t.Errorf("%s: accepted", c.jwk)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "cannot verify cards") || !strings.Contains(msg, "Ed25519") || strings.Contains(msg, "go-jose") {
			t.Errorf("%s: err = %q, want it to name %s and the keys that verify cards", c.jwk, msg, c.want)
		}
	}
	// A malformed key of a type that verifies cards keeps its own reason.
	_, err := ParseJWKS([]byte(`{"kty": "EC", "crv": "P-256", "kid": "a", "x": "AA", "y": "AA"}`), abi.Verified, "k.json")
	if err == nil || !strings.Contains(err.Error(), "wrong length") {
		t.Errorf("malformed P-256 key: err = %v", err)
	}
}
