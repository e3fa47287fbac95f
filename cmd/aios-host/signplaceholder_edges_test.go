package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignReplacesPlaceholderPin: docs/trust.md says sign fills in the
// artifact's sha256 itself, but a draft with a placeholder there ("sha256":
// "TODO", as one writes before the file is final) was refused as a
// malformed card (found by p135). sign replaces it, and files, unchecked;
// the signed card verifies.
func TestSignReplacesPlaceholderPin(t *testing.T) {
	e := newEnv(t)
	keys := filepath.Join(t.TempDir(), "keys")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keys); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	folder := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "tool.js"), []byte("export const x = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	draft := filepath.Join(folder, "adapter.json")
	if err := os.WriteFile(draft, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/demo.sock"},
  "artifact": {"path": "tool.js", "sha256": "TODO", "files": "later"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, signed, errs := e.bare("sign", draft, "--key", filepath.Join(keys, "private.pem"))
	if code != 0 {
		t.Fatalf("sign of a draft with a placeholder sha256: exit %d, %s", code, errs)
	}
	if strings.Contains(signed, "TODO") || strings.Contains(signed, "later") {
		t.Errorf("the signed card kept a placeholder: %s", signed)
	}
	if err := os.WriteFile(draft, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run("", "verify", draft, "--jwks", filepath.Join(keys, "jwks.json")); code != 0 || !strings.HasPrefix(out, "valid") {
		t.Errorf("verify of the signed card: exit %d, %q %q; want valid", code, out, errs)
	}
}
