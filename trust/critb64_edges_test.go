package trust

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
)

// TestCritB64True: RFC 7797 makes "b64" a header a JWS must list in
// "crit"; with "b64": true the JWS is an ordinary one. This verifier
// reads b64 (it refuses false), yet a card signature with
// {"b64": true, "crit": ["b64"]} was refused as naming "extensions this
// verifier does not support". It verifies now; b64 false, a crit naming
// anything else, and crit ["b64"] without a b64 header are still refused.
func TestCritB64True(t *testing.T) {
	k := newKey(t, "ES256")
	card := readCard(t)
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(abi.Verified, k)
	sign := func(extra map[string]any) []byte {
		opts := (&jose.SignerOptions{}).WithType(JWSType).WithHeader("kid", k.KeyID)
		for h, v := range extra {
			opts = opts.WithHeader(jose.HeaderKey(h), v)
		}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.Key}, opts)
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
		var m map[string]any
		_ = json.Unmarshal(card, &m)
		m["signature"] = Signature{Algorithm: "ES256", KeyID: k.KeyID, Value: value}
		out, _ := json.Marshal(m)
		return out
	}
	if _, err := VerifyCard(context.Background(), sign(map[string]any{"b64": true, "crit": []string{"b64"}}), store); err != nil {
		t.Fatalf("b64 true, crit [b64]: %v", err)
	}
	for name, extra := range map[string]map[string]any{
		"crit [b64] without b64": {"crit": []string{"b64"}},
		"crit [exp]":             {"crit": []string{"exp"}, "exp": 1},
		"crit [b64, exp]":        {"b64": true, "crit": []string{"b64", "exp"}, "exp": 1},
	} {
		_, err := VerifyCard(context.Background(), sign(extra), store)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(errText(err), "crit") {
			t.Errorf("%s: %v, want a refusal naming crit", name, err)
		}
	}
}
