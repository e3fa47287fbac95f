package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestReusedKidRefusalBlamesSigningKeysValidity: keys rotated under one
// kid and one algorithm (a set holding the old key, expired, and the new
// one; or the current key and the next one, not valid yet) refused a card
// signed with the expired or not-yet-valid key as ErrTampered, "signature
// does not match the card (tampered card or wrong key)", the other key's
// mismatch beating the validity refusal: an untouched card was blamed, and
// discovery, which tries a card again once its key is valid
// (ErrKeyNotYetValid), never did. The key whose signature it is decides:
// its expiry or its nbf is the refusal; a card no key verifies is still
// ErrTampered.
func TestReusedKidRefusalBlamesSigningKeysValidity(t *testing.T) {
	card := []byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[]}`)
	for _, tc := range []struct {
		name          string
		signerNbf     time.Duration // the signing key's validity, from now
		signerExp     time.Duration
		want, wantNot error
	}{
		{name: "signed with the expired key", signerExp: -time.Hour, want: ErrKeyExpired, wantNot: ErrTampered},
		{name: "signed with the key not valid yet", signerNbf: time.Hour, want: ErrKeyNotYetValid, wantNot: ErrTampered},
	} {
		signer, err := GenerateKey("ES256", "dup")
		if err != nil {
			t.Fatal(err)
		}
		other, err := GenerateKey("ES256", "dup")
		if err != nil {
			t.Fatal(err)
		}
		jws, err := SignCard(card, signer)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(mustSeedPayload(t, card))
		der, err := ecdsa.SignASN1(rand.Reader, signer.Key.(*ecdsa.PrivateKey), sum[:])
		if err != nil {
			t.Fatal(err)
		}
		bare := withSignature(t, card, "ES256", "dup", base64.RawURLEncoding.EncodeToString(der))
		tampered := withSignature(t, []byte(`{"adapter":{"id":"org.example.b","name":"A","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[]}`), "ES256", "dup", base64.RawURLEncoding.EncodeToString(der))
		for _, signerFirst := range []bool{true, false} {
			order := []SigningKey{other, signer}
			if signerFirst {
				order = []SigningKey{signer, other}
			}
			jwks, err := MarshalJWKS(order[0].PublicJWK(), order[1].PublicJWK())
			if err != nil {
				t.Fatal(err)
			}
			keys, err := ParseJWKS(jwks, abi.Verified, "rot.json")
			if err != nil {
				t.Fatal(err)
			}
			sp, _ := Thumbprint(signer.Key.Public())
			for _, k := range keys {
				if tp, _ := Thumbprint(k.JWK.Key); tp == sp {
					if tc.signerExp != 0 {
						k.Expires = time.Now().Add(tc.signerExp)
					}
					if tc.signerNbf != 0 {
						k.NotBefore = time.Now().Add(tc.signerNbf)
					}
				}
			}
			store := NewKeyStore(nil)
			store.Add(keys...)
			for form, c := range map[string][]byte{"JWS": jws, "bare": bare} {
				_, err = VerifyCard(context.Background(), c, store)
				if !errors.Is(err, tc.want) || errors.Is(err, tc.wantNot) {
					t.Errorf("%s (%s, signer first %v): err = %v, want %v, not %v", tc.name, form, signerFirst, err, tc.want, tc.wantNot)
				}
			}
			if _, err := VerifyCard(context.Background(), tampered, store); !errors.Is(err, ErrTampered) {
				t.Errorf("%s (tampered, signer first %v): err = %v, want ErrTampered", tc.name, signerFirst, err)
			}
		}
	}
}

func mustSeedPayload(t *testing.T, card []byte) []byte {
	t.Helper()
	p, err := SeedPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompactReusedKidBlamesSigningKeysValidity: VerifyCompact (a signed
// audit anchor, audit verify --signed-anchor --jwks) reported whichever
// refusal came last among the keys of the token's kid: with keys rotated
// under one kid, an anchor signed with the old, expired key was "tampered
// token or wrong key" when the new key came after it in the set, and a
// tampered anchor was "expired" when the expired key came last. The
// signing key's expiry is reported whatever the order, and a token no key
// verifies is ErrTampered.
func TestCompactReusedKidBlamesSigningKeysValidity(t *testing.T) {
	signer, err := GenerateKey("ES256", "dup")
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateKey("ES256", "dup")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := SignCompact([]byte(`{"seq":1}`), "aios-audit-anchor+jws", signer)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := SignCompact([]byte(`{"seq":1}`), "aios-audit-anchor+jws", SigningKey{Key: mustKey(t).Key, KeyID: "dup"})
	if err != nil {
		t.Fatal(err)
	}
	for _, signerFirst := range []bool{true, false} {
		order := []SigningKey{other, signer}
		if signerFirst {
			order = []SigningKey{signer, other}
		}
		jwks, err := MarshalJWKS(order[0].PublicJWK(), order[1].PublicJWK())
		if err != nil {
			t.Fatal(err)
		}
		keys, err := ParseJWKS(jwks, abi.Verified, "rot.json")
		if err != nil {
			t.Fatal(err)
		}
		sp, _ := Thumbprint(signer.Key.Public())
		for _, k := range keys {
			if tp, _ := Thumbprint(k.JWK.Key); tp == sp {
				k.Expires = time.Now().Add(-time.Hour)
			}
		}
		if _, _, err := VerifyCompact(tok, "aios-audit-anchor+jws", keys); !errors.Is(err, ErrKeyExpired) || errors.Is(err, ErrTampered) {
			t.Errorf("signer first %v: err = %v, want the signing key's expiry", signerFirst, err)
		}
		if _, _, err := VerifyCompact(forged, "aios-audit-anchor+jws", keys); !errors.Is(err, ErrTampered) {
			t.Errorf("forged, signer first %v: err = %v, want ErrTampered", signerFirst, err)
		}
	}
}

func mustKey(t *testing.T) SigningKey {
	t.Helper()
	k, err := GenerateKey("ES256", "")
	if err != nil {
		t.Fatal(err)
	}
	return k
}
