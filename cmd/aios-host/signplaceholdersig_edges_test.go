package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignReplacesPlaceholderSignature: sign replaces a card's signature,
// but a draft holding a placeholder there — "signature": {}, null, an
// empty key_id and value as a card written after seed 001 §2.2's example
// may hold, or a member the host does not know — was refused as
// "malformed card signature: signature.key_id is missing", by the command
// that writes it. The old signature is dropped unread; the signed card
// verifies and holds no trace of it. A card that is not I-JSON is still
// refused.
func TestSignReplacesPlaceholderSignature(t *testing.T) {
	e := newEnv(t)
	keys := filepath.Join(t.TempDir(), "keys")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keys); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	dir := t.TempDir()
	const head = `{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "http://127.0.0.1:9/rpc"}, "signature": `
	for i, sig := range []string{`{}`, `null`, `""`, `{"algorithm": "RS256", "key_id": "", "value": ""}`, `{"algorithm": "RS256", "key_id": "aios-adapter-key-001", "value": "PLACEHOLDER", "note": "fill in"}`} {
		draft := filepath.Join(dir, "draft.json")
		if err := os.WriteFile(draft, []byte(head+sig+"}"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, signed, errs := e.bare("sign", draft, "--key", filepath.Join(keys, "private.pem"))
		if code != 0 {
			t.Errorf("%d: sign of a draft with signature %s: exit %d, %s", i, sig, code, errs)
			continue
		}
		if strings.Contains(signed, "PLACEHOLDER") || strings.Contains(signed, "fill in") || strings.Contains(signed, "aios-adapter-key-001") {
			t.Errorf("%d: the signed card kept the old signature: %s", i, signed)
		}
		out := filepath.Join(dir, "signed.json")
		if err := os.WriteFile(out, []byte(signed), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, stdout, errs := e.run("", "verify", out, "--jwks", filepath.Join(keys, "jwks.json")); code != 0 || !strings.HasPrefix(stdout, "valid") {
			t.Errorf("%d: verify of the signed card: exit %d, %q %q; want valid", i, code, stdout, errs)
		}
	}
	draft := filepath.Join(dir, "dup.json")
	if err := os.WriteFile(draft, []byte(head+`{}, "signature": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.bare("sign", draft, "--key", filepath.Join(keys, "private.pem")); code == 0 || !strings.Contains(errs, "duplicate") {
		t.Errorf("a card with two signature members: exit %d, %q; want refused as not I-JSON", code, errs)
	}
}
