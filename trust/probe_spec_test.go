package trust

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// seedSignPy is seed 001 §4.2's sign_adapter_card, verbatim, driven
// from stdin: the card, then the PEM private key.
const seedSignPy = `
import json, sys
import base64
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

def sign_adapter_card(adapter_card: dict, private_key) -> str:
    # 移除现有签名
    card_copy = {k: v for k, v in adapter_card.items() if k != 'signature'}

    # 规范化 JSON
    payload = json.dumps(card_copy, sort_keys=True, separators=(',', ':'))

    # 签名
    signature = private_key.sign(
        payload.encode(),
        padding.PKCS1v15(),
        hashes.SHA256()
    )

    return base64.urlsafe_b64encode(signature).decode()

doc = json.load(sys.stdin)
key = serialization.load_pem_private_key(doc["key"].encode(), password=None)
sys.stdout.write(sign_adapter_card(doc["card"], key))
`

// TestProbeSeedRawSignatureExplained: seed 001 §4.2's sign_adapter_card
// gives signature.value as a bare base64url signature over Python's
// json.dumps of the card; the host takes JWS only (§4.1), as README
// ("Not built, or limited") says. A card signed by the seed's own code was
// refused with "signature.value is not a compact JWS (want
// header..signature, got 1 parts)", which tells its author neither why
// nor what to do. The error says that a bare signature (as seed §4.2
// makes) is not accepted and how to sign instead.
func TestProbeSeedRawSignatureExplained(t *testing.T) {
	k := newKey(t, "RS256")
	card := readCard(t)
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	value := "c2lnbmF0dXJlIGJ5dGVz" // a bare base64url signature
	if _, err := exec.LookPath("python3"); err == nil {
		der, err := x509.MarshalPKCS8PrivateKey(k.Key)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(map[string]any{"card": m, "key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))})
		cmd := exec.Command("python3", "-c", seedSignPy)
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Logf("the seed's Python signer did not run (%v): a made-up bare value is tried", err)
		} else {
			value = string(out)
		}
	}
	m["signature"] = map[string]any{"algorithm": "RS256", "key_id": k.KeyID, "value": value}
	signed, _ := json.Marshal(m)
	_, err := VerifyCard(context.Background(), signed, storeWith(abi.Verified, k))
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("a bare signature: %v, want ErrMalformed", err)
	}
	for _, want := range []string{"bare signature", "§4.2", "aios-host sign", "JWS"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q should say %q", err, want)
		}
	}
}
