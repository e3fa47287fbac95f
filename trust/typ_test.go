package trust

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCardSignatureTyp: a JWS the same key made over the card's bytes for
// something else (typ aios-audit-anchor+jws) is not a card signature;
// the card type, no typ and the seed's "JWT" are.
func TestCardSignatureTyp(t *testing.T) {
	es := newKey(t, "ES256")
	card := readCard(t)
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(abi.Verified, es)
	for typ, ok := range map[string]bool{JWSType: true, "JWT": true, "aios-audit-anchor+jws": false, "at+jwt": false} {
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

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
