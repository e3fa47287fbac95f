package trust

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKSShapeErrorSaysWhatAJWKSIs: a key file of the wrong shape — an
// array of JWKs (the "keys" array pasted alone), "keys" an object, or
// "keys": null — was refused as `not a JWKS: json: cannot unmarshal array
// into Go value of type struct { Keys []json.RawMessage "json:\"keys\"" }`
// (a Go type) or, for null, as a JWK "missing json web key type". The
// error names the file and the shape wanted.
func TestJWKSShapeErrorSaysWhatAJWKSIs(t *testing.T) {
	k, err := GenerateKey("ES256", "a")
	if err != nil {
		t.Fatal(err)
	}
	set, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	s := string(set)
	jwk := s[strings.Index(s, "[")+1 : strings.LastIndex(s, "]")]
	for name, doc := range map[string]string{
		"array of JWKs": "[" + jwk + "]",
		"keys object":   `{"keys": {"a": ` + jwk + `}}`,
		"keys null":     `{"keys": null}`,
		"a string":      `"keys"`,
	} {
		_, err := ParseJWKS([]byte(doc), abi.Verified, "keys/vendor.json")
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "keys/vendor.json") || strings.Contains(msg, "Go value") || strings.Contains(msg, "struct {") || strings.Contains(msg, "json web key type") || !strings.Contains(msg, `{"keys": [`) {
			t.Errorf("%s: err = %q, want one naming the file and the shape of a JWKS", name, msg)
		}
	}
	// A set and a single JWK still parse.
	for name, doc := range map[string]string{"set": s, "single JWK": jwk} {
		if keys, err := ParseJWKS([]byte(doc), abi.Verified, "k.json"); err != nil || len(keys) != 1 {
			t.Errorf("%s: %d keys, %v", name, len(keys), err)
		}
	}
}
