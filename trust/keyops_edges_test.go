package trust

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKKeyOpsWithoutVerify: a JWK says what it is for by "use" or
// by "key_ops" (RFC 7517 §4.2, §4.3). A key with use "enc" was left
// unused for cards, but one with key_ops ["encrypt", "wrapKey"] — the
// same encryption key in the other member's words — verified cards at its
// set's trust. A key whose key_ops lack "verify" is left out of its set
// now (a set of it alone is an error saying so); one listing "verify"
// verifies as before.
func TestJWKKeyOpsWithoutVerify(t *testing.T) {
	k := newKey(t, "ES256")
	signed, err := SignCard(readCard(t), k)
	if err != nil {
		t.Fatal(err)
	}
	jwk := func(ops []string) map[string]any {
		b, _ := json.Marshal(k.PublicJWK())
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		delete(m, "use")
		m["key_ops"] = ops
		return m
	}
	for _, ops := range [][]string{{"verify"}, {"sign", "verify"}} {
		b, _ := json.Marshal(map[string]any{"keys": []any{jwk(ops)}})
		keys, err := ParseJWKS(b, abi.Verified, "hub")
		if err != nil {
			t.Fatalf("key_ops %v: %v", ops, err)
		}
		s := NewKeyStore(nil)
		s.Add(keys...)
		if _, err := VerifyCard(context.Background(), signed, s); err != nil {
			t.Fatalf("key_ops %v: %v", ops, err)
		}
	}
	for _, ops := range [][]string{{"encrypt", "wrapKey"}, {"sign"}, {}} {
		b, _ := json.Marshal(map[string]any{"keys": []any{jwk(ops)}})
		if _, err := ParseJWKS(b, abi.Verified, "hub"); err == nil || !strings.Contains(err.Error(), "key_ops") {
			t.Errorf("key_ops %v: set loaded (%v), want it refused naming key_ops", ops, err)
		}
		// Beside a key that can verify, it is left out, not trusted.
		other := newKey(t, "ES256")
		ob, _ := json.Marshal(other.PublicJWK())
		var om map[string]any
		_ = json.Unmarshal(ob, &om)
		b, _ = json.Marshal(map[string]any{"keys": []any{jwk(ops), om}})
		keys, err := ParseJWKS(b, abi.Verified, "hub")
		if err != nil {
			t.Fatalf("key_ops %v beside a signing key: %v", ops, err)
		}
		s := NewKeyStore(nil)
		s.Add(keys...)
		if _, err := VerifyCard(context.Background(), signed, s); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("key_ops %v: card verified with it (%v)", ops, err)
		}
	}
}
