package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignYAMLDescriptionSaysCannotBeSigned: seed 001 §2.1 names
// tool.aios.yaml beside adapter.json as a local adapter's description, and
// `sign` and `verify` given one answered with a JSON parser's complaint
// ("jcs: offset 0: invalid literal (want true)", "not a JSON object:
// invalid character 'o' in literal true"), as if the file were a broken
// card. They now say that a YAML description cannot be signed and what to
// sign instead.
func TestSignYAMLDescriptionSaysCannotBeSigned(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "k")); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	yaml := filepath.Join(dir, "tool.aios.yaml")
	if err := os.WriteFile(yaml, []byte("tool:\n  id: org.example.notes\n  name: Notes\n  version: 1.2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.bare("sign", yaml, "--key", filepath.Join(dir, "k", "private.pem"))
	if code != 1 || !strings.Contains(errs, yaml) || !strings.Contains(errs, "cannot be signed") || !strings.Contains(errs, "adapter.json") {
		t.Errorf("sign tool.aios.yaml: exit %d, %q; want 1 naming the file, saying it cannot be signed and that an adapter.json can", code, errs)
	}
	code, out, _ := e.bare("verify", yaml, "--jwks", filepath.Join(dir, "k", "jwks.json"))
	if code != 1 || !strings.Contains(out, yaml) || !strings.Contains(out, "cannot be signed") {
		t.Errorf("verify tool.aios.yaml: exit %d, %q; want 1 naming the file and saying it cannot be signed", code, out)
	}
}
