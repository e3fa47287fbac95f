package main

import (
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
