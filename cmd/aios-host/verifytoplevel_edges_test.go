package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyRefusesTopLevelArtifactCard: a signed card at the top of
// a plugin folder that names an artifact beside it (plugins/x.adapter.json
// pinning plugins/x.js) is refused by discovery ("a card at the top of a
// plugin folder cannot name an artifact"), each file there being a unit of
// its own; verify said "valid", exit 0. It now refuses it the same way,
// and the same card in a folder of its own is valid.
func TestVerifyRefusesTopLevelArtifactCard(t *testing.T) {
	e := newEnv(t)
	keys := filepath.Join(t.TempDir(), "keys")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keys); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	jwks := filepath.Join(keys, "jwks.json")
	cfg := filepath.Join(t.TempDir(), "aios.yaml")
	if err := os.WriteFile(cfg, []byte("discovery:\n  keys: [{trust: Verified, jwks: "+jwks+"}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	signIn := func(dir string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "x.js"), []byte("export const x = 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		draft := filepath.Join(dir, "x.adapter.json")
		if err := os.WriteFile(draft, []byte(`{"adapter": {"id": "org.example.x", "name": "X", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "x.js"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		code, signed, errs := e.bare("sign", draft, "--key", filepath.Join(keys, "private.pem"))
		if code != 0 {
			t.Fatalf("sign: %s", errs)
		}
		if err := os.WriteFile(draft, []byte(signed), 0o644); err != nil {
			t.Fatal(err)
		}
		return draft
	}
	top := signIn(e.plugins)
	code, out, _ := e.run("", "verify", top, "--config", cfg)
	if code != 1 || !strings.HasPrefix(out, "invalid:") || !strings.Contains(out, "top of a plugin folder") {
		t.Fatalf("verify of a top-level card naming an artifact: exit %d, %q; want exit 1 saying why", code, out)
	}
	_, _, logs := e.run("", "list", "--config", cfg)
	if !strings.Contains(logs, "top of a plugin folder cannot name an artifact") {
		t.Fatalf("discovery no longer refuses it (verify must agree with it): %s", logs)
	}
	own := signIn(filepath.Join(t.TempDir(), "x"))
	if code, out, _ := e.run("", "verify", own, "--config", cfg); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("the card in a folder of its own: exit %d, %q; want valid", code, out)
	}
}
