package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignEmptyCardSaysEmpty: signing a card in place (`sign adapter.json >
// adapter.json`, as one might `jq . x > x`) has the shell empty the card
// before sign reads it, and sign answered "card: jcs: offset 0: unexpected
// end of input" (verify of an empty card: "not a JSON object: unexpected
// end of JSON input"), an internal parser's words that did not say the
// file was empty nor why. Both now say the card file is empty, and sign
// says to write the signed card to another file.
func TestSignEmptyCardSaysEmpty(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "k")); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	card := filepath.Join(dir, "adapter.json")
	for _, content := range []string{"", " \n"} {
		if err := os.WriteFile(card, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := e.bare("sign", card, "--key", filepath.Join(dir, "k", "private.pem"))
		if code != 1 || !strings.Contains(errs, card+" is empty") || !strings.Contains(errs, "another file") || strings.Contains(errs, "jcs") {
			t.Errorf("sign of an empty card: exit %d, %q; want 1 naming the file, saying it is empty and to write to another file", code, errs)
		}
		code, out, _ := e.bare("verify", card, "--jwks", filepath.Join(dir, "k", "jwks.json"))
		if code != 1 || !strings.Contains(out, card+" is empty") || strings.Contains(out, "unexpected end") {
			t.Errorf("verify of an empty card: exit %d, %q; want 1 naming the file and saying it is empty", code, out)
		}
	}
}
