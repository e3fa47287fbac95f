package trust

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKAlgEd25519: RFC 9864 names EdDSA over Ed25519 "Ed25519"
// (and deprecates the polymorphic "EdDSA"), so key tools now publish an
// Ed25519 key as {"kty": "OKP", "crv": "Ed25519", "alg": "Ed25519"}.
// Such a key could verify no card: "key is for alg Ed25519 but the card
// is signed with EdDSA", though that is the one algorithm it does. It
// verifies EdDSA card signatures now; tagged with another algorithm it
// still does not.
func TestJWKAlgEd25519(t *testing.T) {
	k := newKey(t, "EdDSA")
	signed, err := SignCard(readCard(t), k)
	if err != nil {
		t.Fatal(err)
	}
	for alg, ok := range map[string]bool{"Ed25519": true, "EdDSA": true, "": true, "Ed448": false, "ES256": false} {
		b, _ := json.Marshal(k.PublicJWK())
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if alg == "" {
			delete(m, "alg")
		} else {
			m["alg"] = alg
		}
		b, _ = json.Marshal(map[string]any{"keys": []any{m}})
		keys, err := ParseJWKS(b, abi.Verified, "hub")
		if err != nil {
			t.Fatalf("alg %q: %v", alg, err)
		}
		s := NewKeyStore(nil)
		s.Add(keys...)
		v, err := VerifyCard(context.Background(), signed, s)
		if ok && (err != nil || v.Trust != abi.Verified) {
			t.Errorf("JWK alg %q: %v", alg, err)
		}
		if !ok && !errors.Is(err, ErrAlgorithm) {
			t.Errorf("JWK alg %q: %v, want ErrAlgorithm", alg, err)
		}
	}
}
