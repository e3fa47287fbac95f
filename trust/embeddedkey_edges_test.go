package trust

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
)

// TestEmbeddedKeyHeadersIgnored: a forger signs the card with its
// own key and names the trusted key's kid, carrying its public key in the
// protected header ("jwk", RFC 7515 §4.1.3) or pointing at it ("jku",
// "x5u"): a verifier that took the key from the header would accept it.
// The card's key is looked up by key_id in the configured keys only, so
// each is refused as ErrTampered. No defect.
func TestEmbeddedKeyHeadersIgnored(t *testing.T) {
	trusted := newKey(t, "ES256")
	forger := newKey(t, "ES256")
	card := readCard(t)
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(abi.Verified, trusted)
	for name, opts := range map[string]*jose.SignerOptions{
		"jwk": {EmbedJWK: true},
		"jku": (&jose.SignerOptions{}).WithHeader("jku", "https://forger.example/jwks.json"),
		"x5u": (&jose.SignerOptions{}).WithHeader("x5u", "https://forger.example/cert.pem"),
	} {
		opts = opts.WithType(JWSType)
		if !opts.EmbedJWK {
			opts = opts.WithHeader("kid", trusted.KeyID)
		}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: forger.Key, KeyID: trusted.KeyID}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := signer.Sign(payload)
		if err != nil {
			t.Fatal(err)
		}
		value, err := obj.DetachedCompactSerialize()
		if err != nil {
			t.Fatal(err)
		}
		hb, _ := base64.RawURLEncoding.DecodeString(strings.Split(value, ".")[0])
		var hdr map[string]any
		if json.Unmarshal(hb, &hdr) != nil || hdr[name] == nil {
			t.Fatalf("%s: the header %s does not carry it", name, hb)
		}
		var m map[string]any
		_ = json.Unmarshal(card, &m)
		m["signature"] = Signature{Algorithm: "ES256", KeyID: trusted.KeyID, Value: value}
		signed, _ := json.Marshal(m)
		if _, err := VerifyCard(context.Background(), signed, store); !errors.Is(err, ErrTampered) {
			t.Errorf("%s header: %v, want ErrTampered", name, err)
		}
	}
}
