package trust

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
)

// TestSeedJWSHeader: seed 001 §2.2's signature value begins with the
// protected header {"alg":"RS256","typ":"JWT"} (no kid) and its key_id is
// "aios-adapter-key-001". A card signed by another implementation with that
// header, over the canonical card, detached, verifies; the same signature on
// a changed card does not.
func TestSeedJWSHeader(t *testing.T) {
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

// TestSeedAttachedPayload: seed 001 §4.1 gives the signature's format
// as JWS compact serialization, "Header.Payload.Signature". A signer that
// includes the payload — the canonical card without its signature — signs
// the very bytes a detached signature covers: it verifies, and an attached
// payload that is not this card's canonical form is refused as malformed.
func TestSeedAttachedPayload(t *testing.T) {
	k := newKey(t, "ES256")
	card := readCard(t)
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.Key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", k.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	value, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	m["signature"] = map[string]any{"algorithm": "ES256", "key_id": k.KeyID, "value": value}
	signed, _ := json.Marshal(m)
	store := storeWith(abi.Community, k)
	v, err := VerifyCard(context.Background(), signed, store)
	if err != nil {
		t.Fatalf("attached payload of the canonical card refused: %v", err)
	}
	if v.Trust != abi.Community {
		t.Fatalf("verified %+v", v)
	}
	// The seed's §4.2 serialization (json.dumps with sort_keys and
	// ensure_ascii: non-ASCII as \uXXXX), attached: the signed bytes are
	// not JCS, but they are this card.
	delete(m, "signature")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Log("no python3: the seed's serialization is not tried")
	} else {
		cmd := exec.Command("python3", "-c", "import json,sys; c=json.load(sys.stdin); c.pop('signature', None); sys.stdout.write(json.dumps(c, sort_keys=True, separators=(',', ':')))")
		cmd.Stdin = bytes.NewReader(card)
		py, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(py, payload) {
			t.Fatal("the Python serialization is the canonical one; the case tests nothing")
		}
		pobj, err := signer.Sign(py)
		if err != nil {
			t.Fatal(err)
		}
		pv, _ := pobj.CompactSerialize()
		m["signature"] = map[string]any{"algorithm": "ES256", "key_id": k.KeyID, "value": pv}
		pySigned, _ := json.Marshal(m)
		if _, err := VerifyCard(context.Background(), pySigned, store); err != nil {
			t.Fatalf("the seed's serialization, attached: %v", err)
		}
		t.Logf("the seed's serialization (%d bytes, JCS %d) verifies attached", len(py), len(payload))
	}
	m["signature"] = map[string]any{"algorithm": "ES256", "key_id": k.KeyID, "value": value}
	// The same signature over a changed card: the payload is not this card.
	m["adapter"].(map[string]any)["name"] = "Changed"
	changed, _ := json.Marshal(m)
	if _, err := VerifyCard(context.Background(), changed, store); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTampered) {
		t.Fatalf("changed card: %v", err)
	}
}
