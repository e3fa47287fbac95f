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

// TestAttachedPayloadInexactIntegerRefused: a card's integer past 2^53
// must be the canonical form of its double (TestInexactIntegerRefused),
// or 9007199254740993 and 9007199254740992 share one signature while the
// host reads two values. A JWS with its payload attached was compared
// with the card by Canonicalize alone, which reads any integer as a
// double: a payload the key signed with "limit": 9007199254740993
// verified a card saying 9007199254740992, a value its signer never
// signed. Such a payload is refused as not this card, saying why; the
// canonical integer attached verifies.
func TestAttachedPayloadInexactIntegerRefused(t *testing.T) {
	k := newKey(t, "ES256")
	store := storeWith(abi.Verified, k)
	const head = `{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"},"limit":`
	attach := func(signed, card string) []byte {
		hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","kid":"` + k.KeyID + `","typ":"aios-adapter+jws"}`))
		pl := base64.RawURLEncoding.EncodeToString([]byte(signed))
		sum := sha256.Sum256([]byte(hdr + "." + pl))
		r, s, err := ecdsa.Sign(rand.Reader, k.Key.(*ecdsa.PrivateKey), sum[:])
		if err != nil {
			t.Fatal(err)
		}
		rs := make([]byte, 64)
		r.FillBytes(rs[:32])
		s.FillBytes(rs[32:])
		value := hdr + "." + pl + "." + base64.RawURLEncoding.EncodeToString(rs)
		return []byte(card[:len(card)-1] + `,"signature":{"algorithm":"ES256","key_id":"` + k.KeyID + `","value":"` + value + `"}}`)
	}

	_, err := VerifyCard(context.Background(), attach(head+`9007199254740993}`, head+`9007199254740992}`), store)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "9007199254740993") {
		t.Errorf("a card saying 9007199254740992 under a payload signing 9007199254740993: err = %v, want ErrMalformed naming the payload's integer", err)
	}
	if _, err := VerifyCard(context.Background(), attach(head+`9007199254740992}`, head+`9007199254740992}`), store); err != nil {
		t.Errorf("the canonical integer attached: %v", err)
	}
	// A payload that holds a signature member is not the card without it.
	_, err = VerifyCard(context.Background(), attach(head+`1,"signature":{"algorithm":"ES256","key_id":"x","value":"y"}}`, head+`1}`), store)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("a payload with a signature member: err = %v, want ErrMalformed", err)
	}
}
