package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAnchorOutDashIsStdout: `audit anchor --out -` (a script's "-" for
// standard output, as `space put SPACE -` and `call TOOL -` take it for
// standard input) wrote the signed anchor to a file named "-" in the
// working directory and said "written to -": the script's pipe got a
// status line instead of the anchor. "-" is standard output now, as
// leaving --out out is, and no file is made.
func TestAnchorOutDashIsStdout(t *testing.T) {
	e := newEnv(t)
	keyDir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(audit.Entry{CallID: "c1", Caller: "cli", Tool: "t", Version: "1.0.0"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wd := t.TempDir()
	t.Chdir(wd)
	code, out, errs := e.run("", "audit", "anchor", "--key", filepath.Join(keyDir, "private.pem"), "--out", "-")
	if code != exitOK {
		t.Fatalf("audit anchor --out -: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Lstat(filepath.Join(wd, "-")); err == nil {
		t.Errorf("audit anchor --out - made a file named \"-\" in the working directory")
	}
	tok := strings.TrimSpace(out)
	if strings.Count(tok, ".") != 2 || strings.ContainsAny(tok, " \n") {
		t.Fatalf("audit anchor --out -: stdout %q; want the signed anchor (a compact JWS) alone", out)
	}
	// The anchor on standard output verifies, as one written to a file.
	anc := filepath.Join(t.TempDir(), "anchor.jws")
	if err := os.WriteFile(anc, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "audit", "verify", "--signed-anchor", anc, "--jwks", filepath.Join(keyDir, "jwks.json")); code != exitOK {
		t.Fatalf("verify of the anchor printed by --out -: exit %d, %s", code, errs)
	}
}
