package discovery

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/trust"
)

// TestSignatureMemberEd25519: docs/trust.md says a card signed by a tool
// that follows RFC 9864 (JWS header alg "Ed25519", the fully-specified
// name for EdDSA over Ed25519) verifies, "the signature member may name
// either", and trust.VerifyCard takes it (TestJWSAlgEd25519). The card
// check refused it before the signature was looked at
// (`signature.algorithm: "Ed25519" is not RS256, ES256 or EdDSA`), so
// `aios-host verify` said invalid and discovery refused the folder.
func TestSignatureMemberEd25519(t *testing.T) {
	key, err := trust.GenerateKey("EdDSA", "k1")
	if err != nil {
		t.Fatal(err)
	}
	priv := key.Key.(ed25519.PrivateKey)
	card := `{"adapter": {"id": "org.example.ed", "name": "Ed", "version": "1.0.0", "protocol_version": "0.3.0"},
		"capabilities": {}, "skills": [{"id": "hello", "name": "Hello", "permission_level": "low"}],
		"endpoints": {"rpc": "unix:///run/ed.sock"}}`
	payload, _, err := trust.SigningPayload([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	hdr, _ := json.Marshal(map[string]string{"alg": "Ed25519", "kid": key.KeyID, "typ": trust.JWSType})
	h := base64.RawURLEncoding.EncodeToString(hdr)
	s := base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(h+"."+base64.RawURLEncoding.EncodeToString(payload))))
	for _, member := range []string{"Ed25519", "EdDSA"} {
		sig, _ := json.Marshal(trust.Signature{Algorithm: member, KeyID: key.KeyID, Value: h + ".." + s})
		signed := strings.TrimSuffix(string(payload), "}") + `,"signature":` + string(sig) + "}"
		c, err := ParseCard([]byte(signed), "adapter.json")
		if err != nil {
			t.Fatalf("signature.algorithm %q: %v", member, err)
		}
		if c.Signature == nil || c.Signature.Algorithm != member {
			t.Fatalf("signature.algorithm %q: parsed %+v", member, c.Signature)
		}
	}
	// An algorithm cards do not take is still refused, naming those they do.
	sig, _ := json.Marshal(trust.Signature{Algorithm: "HS256", KeyID: key.KeyID, Value: h + ".." + s})
	_, err = ParseCard([]byte(strings.TrimSuffix(string(payload), "}")+`,"signature":`+string(sig)+"}"), "adapter.json")
	if err == nil || !strings.Contains(err.Error(), `signature.algorithm: "HS256" is not RS256, ES256, EdDSA or Ed25519`) {
		t.Fatalf("HS256: %v", err)
	}
}
