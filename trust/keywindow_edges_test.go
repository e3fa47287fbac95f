package trust

import (
	"strings"
	"testing"
)

// TestKeyEntryExpiringBeforeValidRefused: a discovery.keys entry whose
// expires is not after its not_before (the two swapped, or a typo in a
// year) was taken, and the key it trusts could never verify anything:
// each card it signed was refused at load as "expired at …", blaming the
// card's key rather than the config line. The entry is refused at start
// naming both times.
func TestKeyEntryExpiringBeforeValidRefused(t *testing.T) {
	k, err := GenerateKey("ES256", "a")
	if err != nil {
		t.Fatal(err)
	}
	jwk := map[string]any{"kty": "EC", "crv": "P-256", "kid": "a"}
	pub := k.PublicJWK()
	raw, err := pub.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"x", "y"} {
		i := strings.Index(string(raw), `"`+m+`":"`) + len(m) + 4
		jwk[m] = string(raw)[i : i+strings.Index(string(raw)[i:], `"`)]
	}
	_, err = LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWK: jwk, NotBefore: "2030-01-01T00:00:00Z", Expires: "2020-01-01T00:00:00Z"}}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "2020-01-01T00:00:00Z") || !strings.Contains(err.Error(), "2030-01-01T00:00:00Z") || !strings.Contains(err.Error(), "never") {
		t.Errorf("expires before not_before: err = %v, want one naming both and saying the key would never be valid", err)
	}
	// A window that opens before it closes is taken.
	if _, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWK: jwk, NotBefore: "2020-01-01T00:00:00Z", Expires: "2030-01-01T00:00:00Z"}}, "", nil); err != nil {
		t.Errorf("a valid window: %v", err)
	}
}
