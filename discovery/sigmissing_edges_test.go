package discovery

import (
	"strings"
	"testing"
)

// TestSignatureMissingMemberNamed: a signature member lacking one of its
// three members was told "signature: key_id and value are required" when
// only one of them was missing, and one without "algorithm" was told
// `signature.algorithm: "" is not RS256, …`, quoting a value the card did
// not hold. Each missing member is named as missing.
func TestSignatureMissingMemberNamed(t *testing.T) {
	base := `{"adapter": {"id": "org.example.sig", "name": "Sig", "version": "1.0.0", "protocol_version": "0.3.0"},
		"capabilities": {}, "skills": [{"id": "hello", "name": "Hello", "permission_level": "low"}],
		"endpoints": {"rpc": "unix:///run/sig.sock"}, "signature": %s}`
	for sig, want := range map[string]string{
		`{"algorithm": "ES256", "value": "e30..AAAA"}`:      "signature.key_id: required, must not be empty",
		`{"algorithm": "ES256", "key_id": "k1"}`:            "signature.value: required, must not be empty",
		`{"algorithm": "ES256", "key_id": "", "value": ""}`: "signature: key_id and value are required",
		`{"key_id": "k1", "value": "e30..AAAA"}`:            "signature.algorithm: required, must not be empty (RS256, ES256, EdDSA or Ed25519)",
		`{}`:                                                "signature.algorithm: required, must not be empty (RS256, ES256, EdDSA or Ed25519)",
	} {
		_, err := ParseCard([]byte(strings.Replace(base, "%s", sig, 1)), "adapter.json")
		if err == nil || !strings.Contains(err.Error(), "adapter.json: "+want) {
			t.Errorf("signature %s: %v, want %q", sig, err, want)
		}
	}
}
