package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyKidRefused: `audit anchor --kid ""` is refused (exit 2), but
// `sign --kid "$KID"` and `keygen --kid "$KID"` with KID unset took the
// empty value as no --kid: sign signed the card under the kid of
// jwks.json (or the thumbprint), keygen named the key by its thumbprint,
// not the id the script meant, and nothing said so. Both refuse it now,
// exit 2 naming --kid, and make nothing.
func TestEmptyKidRefused(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	keyDir := filepath.Join(dir, "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	card := filepath.Join(dir, "card.json")
	if err := os.WriteFile(card, []byte(`{"adapter":{"id":"org.p155.x","name":"X","version":"1.0.0","protocol_version":"0.3.0","description":"d"},"capabilities":{},"skills":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh")
	for _, args := range [][]string{
		{"sign", card, "--key", filepath.Join(keyDir, "private.pem"), "--kid", ""},
		{"keygen", "--alg", "EdDSA", "--out", fresh, "--kid="},
	} {
		code, out, errs := e.bare(args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "--kid") {
			t.Errorf("%q: exit %d, stdout %.100q, stderr %.200q; want exit 2 naming --kid and nothing on stdout", args, code, out, errs)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("keygen --kid \"\" made %s", fresh)
	}
}
