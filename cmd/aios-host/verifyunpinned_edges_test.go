package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyRefusesUnpinnedArtifact: a card signed without an
// "artifact" member, in a provider folder beside tool.js, is refused by
// discovery (run, list: "the card is signed but does not pin its
// artifact"), since the signature then vouches for no code; verify said
// "valid" and exited 0, so an operator checking a folder before dropping
// it in was told it would load. verify now refuses it the same way. A card
// at the top of a plugin folder, whose files beside it are units of their
// own, is still valid.
// signedDemoCard makes a key pair and signs with it a card that pins no
// artifact, returning the signed card and the public key set's path.
func signedDemoCard(t *testing.T, e *env) (signed, jwks string) {
	t.Helper()
	keys := filepath.Join(t.TempDir(), "keys")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keys); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	draft := filepath.Join(t.TempDir(), "draft.json")
	if err := os.WriteFile(draft, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/demo.sock"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, signed, errs := e.bare("sign", draft, "--key", filepath.Join(keys, "private.pem"))
	if code != 0 {
		t.Fatalf("sign: %s", errs)
	}
	return signed, filepath.Join(keys, "jwks.json")
}

func TestVerifyRefusesUnpinnedArtifact(t *testing.T) {
	e := newEnv(t)
	signed, jwks := signedDemoCard(t, e)
	js := "export const x = 1;\n"
	folder := filepath.Join(e.plugins, "demo")
	for path, body := range map[string]string{
		filepath.Join(folder, "tool.js"):                js,
		filepath.Join(folder, "adapter.json"):           signed,
		filepath.Join(e.plugins, "other.js"):            js,
		filepath.Join(e.plugins, "remote.adapter.json"): signed,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := e.run("", "verify", filepath.Join(folder, "adapter.json"), "--jwks", jwks)
	if code != 1 || !strings.HasPrefix(out, "invalid:") || !strings.Contains(out, "does not pin its artifact tool.js") {
		t.Fatalf("verify of a signed card beside an unpinned tool.js: exit %d, %q; want exit 1 naming tool.js", code, out)
	}
	cfg := filepath.Join(t.TempDir(), "aios.yaml")
	if err := os.WriteFile(cfg, []byte("discovery:\n  keys: [{trust: Verified, jwks: "+jwks+"}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, logs := e.run("", "list", "--config", cfg)
	if !strings.Contains(logs, "does not pin its artifact tool.js") {
		t.Fatalf("discovery no longer refuses the folder (verify must agree with it): %s", logs)
	}
	if code, out, _ := e.run("", "verify", filepath.Join(e.plugins, "remote.adapter.json"), "--jwks", jwks); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Fatalf("a card at the top of the plugin folder: exit %d, %q; want valid", code, out)
	}
}
