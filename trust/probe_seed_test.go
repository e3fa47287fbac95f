package trust

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeSeedJWSHeader: seed 001 §2.2's signature value begins with the
// protected header {"alg":"RS256","typ":"JWT"} (no kid) and its key_id is
// "aios-adapter-key-001". A card signed by another implementation with that
// header, over the canonical card, detached, verifies; the same signature on
// a changed card does not.
func TestProbeSeedJWSHeader(t *testing.T) {
	raw, err := os.ReadFile("../discovery/testdata/seed_card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card map[string]any
	if err := json.Unmarshal(raw, &card); err != nil {
		t.Fatal(err)
	}
	delete(card, "signature")
	unsigned, _ := json.Marshal(card)
	payload, _, err := SigningPayload(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	if hdr != "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9" {
		t.Fatalf("header %s is not the seed's", hdr)
	}
	input := hdr + "." + base64.RawURLEncoding.EncodeToString(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	card["signature"] = map[string]any{"algorithm": "RS256", "key_id": "aios-adapter-key-001",
		"value": hdr + ".." + base64.RawURLEncoding.EncodeToString(sig)}
	signed, _ := json.Marshal(card)
	store := NewKeyStore(nil)
	store.Add(&Key{JWK: jose.JSONWebKey{Key: &k.PublicKey, KeyID: "aios-adapter-key-001", Algorithm: "RS256", Use: "sig"}, Trust: abi.Verified, Source: "test"})
	v, err := VerifyCard(context.Background(), signed, store)
	if err != nil {
		t.Fatalf("seed-style signature refused: %v", err)
	}
	if v.Trust != abi.Verified || v.KeyID != "aios-adapter-key-001" || v.Algorithm != "RS256" {
		t.Fatalf("verified %+v", v)
	}
	card["adapter"].(map[string]any)["version"] = "1.0.1"
	tampered, _ := json.Marshal(card)
	if _, err := VerifyCard(context.Background(), tampered, store); !errors.Is(err, ErrTampered) {
		t.Fatalf("tampered card: %v", err)
	}
}
