package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathFlagsExpandHome: a leading "~/" in a file or folder flag is the
// home folder, as in --data, --plugins and --socket (the shell leaves the
// "~" of --out=~/keys alone). keygen --out=~/keys made a folder named "~"
// in the working directory, and --key, --jwks, --signed-anchor, audit
// anchor --out and --config named files that were not found (or wrote one
// beneath such a "~").
func TestPathFlagsExpandHome(t *testing.T) {
	e := newEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	work := t.TempDir()
	t.Chdir(work)

	if code, _, errs := e.run("", "keygen", "--alg", "EdDSA", "--out=~/keys"); code != exitOK {
		t.Fatalf("keygen --out=~/keys: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(home, "keys", "private.pem")); err != nil {
		t.Errorf("keygen --out=~/keys: %v", err)
	}
	writeRotated(t, filepath.Join(e.data, "audit.jsonl"), 2, 0)
	if code, _, errs := e.run("", "audit", "anchor", "--key=~/keys/private.pem", "--out=~/anchor.jws"); code != exitOK {
		t.Errorf("audit anchor --key=~/… --out=~/…: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(home, "anchor.jws")); err != nil {
		t.Errorf("audit anchor --out=~/anchor.jws: %v", err)
	}
	if code, out, errs := e.run("", "audit", "verify", "--signed-anchor=~/anchor.jws", "--jwks=~/keys/jwks.json"); code != exitOK || !strings.Contains(out, "2 records") {
		t.Errorf("audit verify --signed-anchor=~/… --jwks=~/…: %d %q %s", code, out, errs)
	}
	card := filepath.Join(t.TempDir(), "adapter.json")
	if err := os.WriteFile(card, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, signed, errs := e.run("", "sign", card, "--key=~/keys/private.pem")
	if code != exitOK {
		t.Fatalf("sign --key=~/…: %d %s", code, errs)
	}
	if err := os.WriteFile(card, []byte(signed), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run("", "verify", card, "--jwks=~/keys/jwks.json"); code != exitOK || !strings.HasPrefix(out, "valid") {
		t.Errorf("verify --jwks=~/…: %d %q %s", code, out, errs)
	}
	if err := os.WriteFile(filepath.Join(home, "c.yaml"), []byte("limits:\n  max_object_bytes: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "space", "put", "s", card, "--config=~/c.yaml"); code != exitFail || !strings.Contains(errs, "more than 4 bytes") {
		t.Errorf("--config=~/c.yaml (limits.max_object_bytes: 4): %d %s", code, errs)
	}
	if _, err := os.Lstat(filepath.Join(work, "~")); err == nil {
		t.Errorf("a folder named ~ was made in the working directory")
	}
}
