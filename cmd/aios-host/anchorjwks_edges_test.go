package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAnchorOutRefusesKeysJWKS: audit anchor --out refused the log's files
// and the key, but not the jwks.json keygen wrote beside the key, which
// anchor itself reads for the key id and which verify --signed-anchor
// --jwks needs: a slip of tab completion (--out key/jwks.json) replaced the
// public key with the anchor, and no anchor signed by that key could be
// checked any more. It is refused too, exit 2, naming it, and left as it was.
func TestAnchorOutRefusesKeysJWKS(t *testing.T) {
	e := newEnv(t)
	keyDir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	key, jwks := filepath.Join(keyDir, "private.pem"), filepath.Join(keyDir, "jwks.json")
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(audit.Entry{CallID: "c1", Caller: "cli", Tool: "t", Version: "1.0.0"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(jwks)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "audit", "anchor", "--key", key, "--out", jwks)
	if code != exitUsage || !strings.Contains(errs, jwks) || !strings.Contains(errs, "public key") {
		t.Errorf("audit anchor --out %s: exit %d, stdout %q, stderr %q; want exit %d naming it as the public key", jwks, code, out, errs, exitUsage)
	}
	if got, _ := os.ReadFile(jwks); string(got) != string(before) {
		t.Fatalf("the jwks.json beside the key was replaced: it now holds %q", got)
	}
	// Anchored elsewhere, it checks with that jwks.json.
	anchor := filepath.Join(t.TempDir(), "anchor.jws")
	if code, stdout, errs := e.run("", "audit", "anchor", "--key", key, "--out", anchor); code != exitOK {
		t.Fatalf("audit anchor --out elsewhere: %d %s %s", code, stdout, errs)
	}
	if code, stdout, errs := e.run("", "audit", "verify", "--signed-anchor", anchor, "--jwks", jwks); code != exitOK {
		t.Fatalf("verify --signed-anchor: %d %s %s", code, stdout, errs)
	}
}
