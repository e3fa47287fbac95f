package trust

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTypFullMediaType: RFC 7515 §4.1.9 lets a signer write typ as
// the whole media type ("application/aios-adapter+jws") or without its
// "application/" prefix, in any case; a recipient must read both alike.
// The card type and the generic JWT/JOSE written in full were refused as
// "not a card signature's"; another type written in full still is.
func TestTypFullMediaType(t *testing.T) {
	es := newKey(t, "ES256")
	card := readCard(t)
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(abi.Verified, es)
	for typ, ok := range map[string]bool{
		"application/aios-adapter+jws":      true,
		"Application/AIOS-Adapter+JWS":      true,
		"application/jwt":                   true,
		"application/jose":                  true,
		"application/aios-audit-anchor+jws": false,
		"text/aios-adapter+jws":             false,
		"application/":                      false,
	} {
		compact, err := SignCompact(payload, typ, es)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(compact, ".")
		var m map[string]any
		if err := json.Unmarshal(card, &m); err != nil {
			t.Fatal(err)
		}
		m["signature"] = Signature{Algorithm: "ES256", KeyID: es.KeyID, Value: parts[0] + ".." + parts[2]}
		signed, _ := json.Marshal(m)
		_, err = VerifyCard(context.Background(), signed, store)
		if ok && err != nil {
			t.Errorf("typ %q: %v", typ, err)
		}
		if !ok && (!errors.Is(err, ErrMalformed) || !strings.Contains(errText(err), "typ")) {
			t.Errorf("typ %q: %v, want a refusal naming typ", typ, err)
		}
	}
}
