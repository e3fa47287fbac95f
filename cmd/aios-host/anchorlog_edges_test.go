package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignedAnchorOfAnotherLogSaysSo: a signed anchor names the log it
// was made for ("log" in its payload), but audit verify --signed-anchor
// never looked: checked against another host's log (a mixed-up file,
// another --data) it said only "records were cut from the end" or "the
// log was rewritten", a false alarm of tampering. Now a failure against
// a log other than the anchor's also says which log the anchor is of.
func TestSignedAnchorOfAnotherLogSaysSo(t *testing.T) {
	a, b := newEnv(t), newEnv(t)
	keyDir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := a.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	// a's log has 3 records, b's 1 (calls of a tool there is none of
	// are recorded too).
	for range 3 {
		a.run("", "call", "nosuch")
	}
	b.run("", "call", "nosuch")
	anchor := filepath.Join(t.TempDir(), "anchor.jws")
	if code, out, errs := a.run("", "audit", "anchor", "--key", filepath.Join(keyDir, "private.pem"), "--out", anchor); code != 0 {
		t.Fatalf("audit anchor: %d %s %s", code, out, errs)
	}
	jwks := filepath.Join(keyDir, "jwks.json")
	if code, out, errs := a.run("", "audit", "verify", "--signed-anchor", anchor, "--jwks", jwks); code != 0 {
		t.Fatalf("audit verify --signed-anchor of its own log: %d %s %s", code, out, errs)
	}
	aLog := filepath.Join(a.data, "audit.jsonl")
	code, out, errs := b.run("", "audit", "verify", "--signed-anchor", anchor, "--jwks", jwks)
	if code != exitFail || !strings.Contains(errs, "the signed anchor "+anchor+" is of the log "+aLog) {
		t.Fatalf("audit verify of b's log with a's signed anchor: exit %d, stdout %q, stderr %q; want exit 1 naming %s as the anchor's log", code, out, errs, aLog)
	}
}

// TestSignedAnchorNamesLogAbsolute: audit anchor FILE wrote FILE into the
// anchor's "log" as given: a relative path, which names another file (or
// none) from any other folder, so the anchor did not say which log it
// vouches for. It is written absolute now, and a verify from another
// folder against that very log, cut short, does not blame a mixed-up
// anchor.
func TestSignedAnchorNamesLogAbsolute(t *testing.T) {
	e := newEnv(t)
	keyDir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	for range 2 {
		e.run("", "call", "nosuch")
	}
	t.Chdir(e.data)
	code, tok, errs := e.bare("audit", "anchor", "--key", filepath.Join(keyDir, "private.pem"), "audit.jsonl")
	if code != 0 {
		t.Fatalf("audit anchor audit.jsonl: %d %s", code, errs)
	}
	anchor := filepath.Join(t.TempDir(), "anchor.jws")
	if err := os.WriteFile(anchor, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	_, log, err := readSignedAnchor(anchor, filepath.Join(keyDir, "jwks.json"))
	if want := filepath.Join(e.data, "audit.jsonl"); err != nil || log != want {
		t.Fatalf("the anchor's log: %q (%v); want %q", log, err, want)
	}
	// The log cut short to one record, checked from another folder.
	b, err := os.ReadFile("audit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("audit.jsonl", b[:bytes.IndexByte(b, '\n')+1], 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	code, _, errs = e.bare("audit", "verify", "--signed-anchor", anchor, "--jwks", filepath.Join(keyDir, "jwks.json"), filepath.Join(e.data, "audit.jsonl"))
	if code != exitFail || !strings.Contains(errs, "records were cut from the end") || strings.Contains(errs, "is of the log") {
		t.Fatalf("verify of the anchored log cut short: exit %d, stderr %q; want records cut, and no word of another log", code, errs)
	}
}
