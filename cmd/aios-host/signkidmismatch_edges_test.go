package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignKidOtherThanBesideNoted: `sign --kid B` with a key whose
// jwks.json beside it (keygen's) names that same key A signed a card
// under key id B without a word, and the card then failed to verify
// against that jwks.json as "no trusted key has key id B" — a typo or an
// old kid found only by whoever verifies. The card is still signed as
// asked (the kid may be a hub's), with a note naming the jwks.json and
// the kid it gives the key.
func TestSignKidOtherThanBesideNoted(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	kd := filepath.Join(dir, "k")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", kd, "--kid", "vendor-2026"); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	card := filepath.Join(dir, "adapter.json")
	if err := os.WriteFile(card, []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"}, "capabilities": {}, "skills": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.bare("sign", card, "--key", filepath.Join(kd, "private.pem"), "--kid", "vendor-2025")
	if code != 0 || !strings.Contains(out, `"key_id": "vendor-2025"`) {
		t.Fatalf("sign --kid vendor-2025: exit %d, %s %s", code, out, errs)
	}
	if !strings.Contains(errs, filepath.Join(kd, "jwks.json")) || !strings.Contains(errs, `"vendor-2026"`) || !strings.Contains(errs, `"vendor-2025"`) {
		t.Errorf("sign --kid other than jwks.json's: stderr %q, want a note naming the jwks.json and both key ids", errs)
	}
	code, _, errs = e.bare("sign", card, "--key", filepath.Join(kd, "private.pem"), "--kid", "vendor-2026")
	if code != 0 || errs != "" {
		t.Errorf("sign --kid as jwks.json says: exit %d, stderr %q, want 0 and nothing", code, errs)
	}
}
