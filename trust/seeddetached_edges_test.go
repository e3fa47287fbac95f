package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestDetachedJWSOverSeedForm: seed 001 §4.1 makes the signature a
// JWS and §4.2 says what it signs: json.dumps(card without "signature",
// sort_keys=True, separators=(',', ':')). A JWS over those bytes with its
// payload attached verified, but the same JWS with the payload detached
// (as the seed's own example value "eyJhbGciOi…..." is) was refused as
// ErrTampered, "does not verify the canonical card", blaming an untouched
// card. It verifies now; the card changed after signing still does not.
func TestDetachedJWSOverSeedForm(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			k := newKey(t, alg)
			card := seedCardText(t)
			seedForm, err := SeedPayload(card)
			if err != nil {
				t.Fatal(err)
			}
			jcs, _, err := SigningPayload(card)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(seedForm, jcs) {
				t.Fatal("the seed's card has the same json.dumps and JCS forms: the test proves nothing")
			}
			compact, err := SignCompact(seedForm, JWSType, k)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(compact, ".")
			store := storeWith(abi.Verified, k)
			for name, value := range map[string]string{"attached": compact, "detached": parts[0] + ".." + parts[2]} {
				signed := withSignature(t, card, alg, k.KeyID, value)
				v, err := VerifyCard(context.Background(), signed, store)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if v.Trust != abi.Verified || v.Algorithm != alg {
					t.Fatalf("%s: verified %+v", name, v)
				}
				var m map[string]any
				_ = json.Unmarshal(signed, &m)
				m["adapter"].(map[string]any)["name"] = "Evil"
				changed, _ := json.Marshal(m)
				_, err = VerifyCard(context.Background(), changed, store)
				if name == "detached" && !errors.Is(err, ErrTampered) {
					t.Fatalf("%s: changed card: %v, want ErrTampered", name, err)
				}
				if err == nil {
					t.Fatalf("%s: changed card verified", name)
				}
			}
		})
	}
}
