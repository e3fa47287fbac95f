package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWSES256DERSignatureSaysSo: a JWS's ES256 signature is r||s, 64
// bytes (RFC 7518 §3.4); a signer that put the DER signature ECDSA
// libraries return (Python's cryptography, OpenSSL, Go's SignASN1) in a
// card's JWS had it refused as ErrTampered, "tampered card or wrong key
// … error in cryptographic primitive", blaming an untouched card and a
// right key. It is ErrMalformed naming the length and the DER form; the
// same signature as r||s verifies.
func TestJWSES256DERSignatureSaysSo(t *testing.T) {
	k := newKey(t, "ES256")
	store := storeWith(abi.Verified, k)
	card := []byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`)
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","kid":"` + k.KeyID + `","typ":"aios-adapter+jws"}`))
	sum := sha256.Sum256([]byte(hdr + "." + base64.RawURLEncoding.EncodeToString(payload)))
	priv := k.Key.(*ecdsa.PrivateKey)
	der, err := ecdsa.SignASN1(rand.Reader, priv, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	_, err = VerifyCard(context.Background(), withSignature(t, card, "ES256", k.KeyID, hdr+".."+base64.RawURLEncoding.EncodeToString(der)), store)
	if !errors.Is(err, ErrMalformed) || errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "DER") || !strings.Contains(err.Error(), "64 bytes") {
		t.Errorf("DER signature in a JWS: err = %v, want ErrMalformed naming its length and DER", err)
	}

	r, s, err := ecdsa.Sign(rand.Reader, priv, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]byte, 64)
	r.FillBytes(rs[:32])
	s.FillBytes(rs[32:])
	if _, err := VerifyCard(context.Background(), withSignature(t, card, "ES256", k.KeyID, hdr+".."+base64.RawURLEncoding.EncodeToString(rs)), store); err != nil {
		t.Errorf("r||s signature: %v", err)
	}
	// A right-sized signature by another key is still a mismatch.
	rs[5] ^= 1
	if _, err := VerifyCard(context.Background(), withSignature(t, card, "ES256", k.KeyID, hdr+".."+base64.RawURLEncoding.EncodeToString(rs)), store); !errors.Is(err, ErrTampered) {
		t.Errorf("changed r||s signature: err = %v, want ErrTampered", err)
	}
}
