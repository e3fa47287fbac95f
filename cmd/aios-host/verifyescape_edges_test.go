package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyEscapesTerminalControls: verify printed the names of the
// files beside the card (its note of files not pinned, the artifact a
// card does not pin) and the card's artifact path as they are, so a file
// named with an escape sequence in a downloaded provider folder set the
// terminal's title of the user checking it, where inspect escapes what a
// plugin not yet trusted wrote (TestInspectEscapesTerminalControls). They
// are printed escaped; the verdict and its exit code stay.
func TestVerifyEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	keys := filepath.Join(t.TempDir(), "k")
	if code, _, errs := e.run("", "keygen", "--alg", "EdDSA", "--out", keys); code != exitOK {
		t.Fatalf("keygen: %s", errs)
	}
	jwks := filepath.Join(keys, "jwks.json")
	const hostile = "x\x1b]0;owned\x07\u202e.js"
	const escaped = `x\x1b]0;owned\x07\u202e.js`
	sign := func(dir, card string) string {
		t.Helper()
		path := filepath.Join(dir, "adapter.json")
		if err := os.WriteFile(path, []byte(card), 0o600); err != nil {
			t.Fatal(err)
		}
		code, signed, errs := e.run("", "sign", path, "--key", filepath.Join(keys, "private.pem"))
		if code != exitOK {
			t.Fatalf("sign: %s", errs)
		}
		if err := os.WriteFile(path, []byte(signed), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const head = `{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}]`

	// A file added beside a signed card that pins its artifact: valid,
	// with a note naming it.
	pinned := t.TempDir()
	if err := os.WriteFile(filepath.Join(pinned, "tool.js"), []byte("// tool\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	card := sign(pinned, head+`, "artifact": {"path": "tool.js"}}`)
	if err := os.WriteFile(filepath.Join(pinned, hostile), []byte("// added\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "verify", card, "--jwks", jwks)
	if code != exitOK || !strings.HasPrefix(out, "valid: ") || !strings.Contains(errs, escaped) {
		t.Fatalf("verify with a file added: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out + errs); bad != nil {
		t.Errorf("verify printed %q to the terminal:\n%q\n%q", bad, out, errs)
	}

	// A signed card that pins no artifact, beside one: invalid, naming it.
	unpinned := t.TempDir()
	if err := os.WriteFile(filepath.Join(unpinned, hostile), []byte("// tool\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	card = sign(unpinned, head+`}`)
	code, out, errs = e.run("", "verify", card, "--jwks", jwks)
	if code != exitFail || !strings.HasPrefix(out, "invalid: ") || !strings.Contains(out, escaped) {
		t.Fatalf("verify of a card pinning no artifact: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(out + errs); bad != nil {
		t.Errorf("verify printed %q to the terminal:\n%q\n%q", bad, out, errs)
	}
}
