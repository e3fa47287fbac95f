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
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSeedSignatureStandardBase64: seed 001 §2.3's field table gives
// signature.value as "签名值 (Base64)", standard Base64; only the §4.2
// sketch uses the URL-safe alphabet. A bare RS256 signature written in
// standard Base64 (with '+' or '/', padded or not) was refused as
// "neither a compact JWS nor a base64url signature"; it verifies now, and
// a changed card signed so still does not.
func TestSeedSignatureStandardBase64(t *testing.T) {
	k := newKey(t, "RS256")
	store := storeWith(abi.Verified, k)
	base := seedCardText(t)
	// RSA PKCS#1 v1.5 is deterministic: vary the card until the signature's
	// standard Base64 holds a character base64url does not have.
	for i := 0; ; i++ {
		if i == 200 {
			t.Fatal("no signature with '+' or '/' in 200 cards")
		}
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		m["adapter"].(map[string]any)["description"] = fmt.Sprintf("variant %d", i)
		card, _ := json.Marshal(m)
		payload, err := SeedPayload(card)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(payload)
		raw, err := rsa.SignPKCS1v15(rand.Reader, k.Key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		std := base64.StdEncoding.EncodeToString(raw)
		if !strings.ContainsAny(std, "+/") {
			continue
		}
		for name, value := range map[string]string{"padded": std, "unpadded": base64.RawStdEncoding.EncodeToString(raw)} {
			signed := withSignature(t, card, "RS256", k.KeyID, value)
			v, err := VerifyCard(context.Background(), signed, store)
			if err != nil {
				t.Fatalf("%s standard Base64 %.16s…: %v", name, value, err)
			}
			if v.Trust != abi.Verified || v.KeyID != k.KeyID {
				t.Fatalf("%s: verified %+v", name, v)
			}
			m["adapter"].(map[string]any)["version"] = "9.9.9"
			changed, _ := json.Marshal(m)
			if _, err := VerifyCard(context.Background(), withSignature(t, changed, "RS256", k.KeyID, value), store); !errors.Is(err, ErrTampered) {
				t.Fatalf("%s: changed card: %v, want ErrTampered", name, err)
			}
			m["adapter"].(map[string]any)["version"] = "1.0.0"
		}
		// Neither alphabet: still malformed, naming both.
		bad := strings.Replace(std, std[:1], "*", 1)
		if _, err := VerifyCard(context.Background(), withSignature(t, card, "RS256", k.KeyID, bad), store); !errors.Is(err, ErrMalformed) || !strings.Contains(errText(err), "Base64") {
			t.Fatalf("a value in no Base64 alphabet: %v", err)
		}
		return
	}
}
