package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sign and verify a card in a package's aios/ folder (seed §2.1): the
// artifact and pinned files are relative to the package, not to aios/.
func TestSignVerifyAiosDir(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "key")); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	pkg := filepath.Join(dir, "pkg")
	for f, data := range map[string]string{
		"bin/tool.wasm":     "\x00asm\x01\x00\x00\x00",
		"lib/helper.js":     "export const x = 1",
		"aios/adapter.json": "",
	} {
		p := filepath.Join(pkg, filepath.FromSlash(f))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(data), 0o644)
	}
	card := `{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}],
  "artifact": {"path": "bin/tool.wasm"}}`
	path := filepath.Join(pkg, "aios", "adapter.json")
	_ = os.WriteFile(path, []byte(card), 0o644)
	code, signed, errs := e.bare("sign", path, "--key", filepath.Join(dir, "key", "private.pem"))
	if code != 0 {
		t.Fatalf("sign: %d %s", code, errs)
	}
	var m struct {
		Artifact struct {
			SHA256 string            `json:"sha256"`
			Files  map[string]string `json:"files"`
		} `json:"artifact"`
	}
	if err := json.Unmarshal([]byte(signed), &m); err != nil || m.Artifact.SHA256 == "" || len(m.Artifact.Files) != 1 || m.Artifact.Files["lib/helper.js"] == "" {
		t.Fatalf("signed card %s (%v)", signed, err)
	}
	_ = os.WriteFile(path, []byte(signed), 0o644)
	jwks := filepath.Join(dir, "key", "jwks.json")
	if code, out, errs := e.bare("verify", path, "--jwks", jwks); code != 0 || !strings.Contains(out, "and 1 pinned file matches") || errs != "" {
		t.Fatalf("verify: %d %q %q", code, out, errs)
	}
	// A new file in the package is noted as unpinned.
	_ = os.WriteFile(filepath.Join(pkg, "lib", "extra.js"), []byte("1"), 0o644)
	// (One file, one verb: "1 files beside the card are not pinned" and
	// "1 pinned files match" were said.)
	if code, _, errs := e.bare("verify", path, "--jwks", jwks); code != 0 || !strings.Contains(errs, "lib/extra.js") || !strings.Contains(errs, "note: 1 file beside the card is not pinned") {
		t.Fatalf("verify with an unpinned file: %d %q", code, errs)
	}
	// A tampered artifact is refused.
	_ = os.WriteFile(filepath.Join(pkg, "bin", "tool.wasm"), []byte("\x00asm\x01\x00\x00\x00evil"), 0o644)
	if code, out, _ := e.bare("verify", path, "--jwks", jwks); code != 1 || !strings.Contains(out, "pins") {
		t.Fatalf("verify a tampered artifact: %d %q", code, out)
	}
}
