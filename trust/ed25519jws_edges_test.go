package trust

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// signEd25519Alg signs card as a JWS whose header alg is "Ed25519", RFC
// 9864's fully-specified name for EdDSA over Ed25519 (which deprecates the
// polymorphic "EdDSA"), with its payload detached or attached, and member
// naming the signature member's algorithm.
func signEd25519Alg(t testing.TB, card []byte, k SigningKey, member string, attached bool) []byte {
	t.Helper()
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	priv, ok := k.Key.(ed25519.PrivateKey)
	if !ok {
		t.Fatalf("key is %T", k.Key)
	}
	hdr, _ := json.Marshal(map[string]string{"alg": "Ed25519", "kid": k.KeyID, "typ": JWSType})
	h := base64.RawURLEncoding.EncodeToString(hdr)
	p := base64.RawURLEncoding.EncodeToString(payload)
	s := base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(h+"."+p)))
	value := h + ".." + s
	if attached {
		value = h + "." + p + "." + s
	}
	sig, _ := json.Marshal(Signature{Algorithm: member, KeyID: k.KeyID, Value: value})
	return []byte(strings.TrimSuffix(string(payload), "}") + `,"signature":` + string(sig) + "}")
}

// TestJWSAlgEd25519: a card signed by a tool that follows RFC 9864 carries
// a JWS header alg "Ed25519". It was refused ("alg \"Ed25519\" is not
// accepted"), though the key and the signature are the EdDSA ones cards
// accept. It verifies now, detached or attached, with the signature
// member saying "Ed25519" or "EdDSA"; a changed card still fails as
// tampered, and a P-256 key claimed under "Ed25519" is algorithm
// confusion.
func TestJWSAlgEd25519(t *testing.T) {
	ctx := context.Background()
	k := newKey(t, "EdDSA")
	store := storeWith(abi.Verified, k)
	for _, member := range []string{"Ed25519", "EdDSA"} {
		for _, attached := range []bool{false, true} {
			signed := signEd25519Alg(t, readCard(t), k, member, attached)
			v, err := VerifyCard(ctx, signed, store)
			if err != nil {
				t.Fatalf("member %q attached %v: %v", member, attached, err)
			}
			if v.Trust != abi.Verified || v.Algorithm != "Ed25519" {
				t.Errorf("member %q attached %v: %+v", member, attached, v)
			}
		}
	}
	signed := signEd25519Alg(t, readCard(t), k, "Ed25519", false)
	var m map[string]any
	if err := json.Unmarshal(signed, &m); err != nil {
		t.Fatal(err)
	}
	m["version"] = "9.9.9"
	tampered, _ := json.Marshal(m)
	if _, err := VerifyCard(ctx, tampered, store); !errors.Is(err, ErrTampered) {
		t.Errorf("changed card: %v, want ErrTampered", err)
	}
	ec := newKey(t, "ES256")
	ec.KeyID = k.KeyID
	if _, err := VerifyCard(ctx, signed, storeWith(abi.Verified, ec)); !errors.Is(err, ErrAlgorithm) {
		t.Errorf("P-256 key under alg Ed25519: %v, want ErrAlgorithm", err)
	}
	// A signature member naming another algorithm than the header still
	// differs.
	bad := signEd25519Alg(t, readCard(t), k, "ES256", false)
	if _, err := VerifyCard(ctx, bad, store); !errors.Is(err, ErrAlgorithm) {
		t.Errorf("member ES256, header Ed25519: %v, want ErrAlgorithm", err)
	}
	// A wrong-length signature is malformed, not a panic.
	short := []byte(strings.Replace(string(signed), `..`, `..AAAA`, 1))
	if _, err := VerifyCard(ctx, short, store); err == nil {
		t.Error("a signature with extra bytes verified")
	}
}
