package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyEmptyJWKSNamed: `verify --jwks FILE` with a key set that holds
// no keys ({"keys": []}, a hub's set after every key was retired, or a
// file cut short by hand) said only `no trusted key has key id "…"`, as
// if the card's key were the problem, while discovery.keys refuses such a
// file at start naming it. verify now fails naming the file and saying it
// holds no keys.
func TestVerifyEmptyJWKSNamed(t *testing.T) {
	e := newEnv(t)
	signed, _ := signedDemoCard(t, e)
	dir := t.TempDir()
	card := filepath.Join(dir, "adapter.json")
	empty := filepath.Join(dir, "empty.json")
	for path, body := range map[string]string{card: signed, empty: `{"keys": []}`} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.bare("verify", card, "--jwks", empty)
	if code != 1 || !strings.Contains(out+errs, empty) || !strings.Contains(out+errs, "no keys") {
		t.Fatalf("verify --jwks with an empty set: exit %d, %q %q; want 1 naming %s and saying it holds no keys", code, out, errs, empty)
	}
}
