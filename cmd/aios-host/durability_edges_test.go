package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/trust"
)

// recordSyncs replaces syncDir for the test and returns the folders it
// was asked to sync.
func recordSyncs(t *testing.T) func() []string {
	t.Helper()
	var mu sync.Mutex
	var dirs []string
	old := syncDir
	syncDir = func(dir string) {
		mu.Lock()
		dirs = append(dirs, dir)
		mu.Unlock()
		old(dir)
	}
	t.Cleanup(func() { syncDir = old })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), dirs...)
	}
}

// audit anchor --out wrote the anchor with os.WriteFile: truncated and
// rewritten in place, never fsynced, so a crash mid-write left a torn (or
// empty) anchor where the good one had been. It writes a temporary file in
// the same folder, fsyncs it, renames it over the old one and fsyncs the
// folder: a hard link to the old anchor keeps the old bytes (the file was
// replaced, not rewritten), and no temporary file is left.
func TestAnchorOutReplacedAtomically(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	keyDir := filepath.Join(dir, "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	id := e.putSource()
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
		t.Fatal(errs)
	}
	outDir := filepath.Join(dir, "anchors")
	if err := os.Mkdir(outDir, 0o700); err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(outDir, "anchor.jws")
	const old = "the previous anchor\n"
	if err := os.WriteFile(anchor, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "kept.jws")
	if err := os.Link(anchor, keep); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	syncs := recordSyncs(t)
	if code, out, errs := e.run("", "audit", "anchor", "--key", filepath.Join(keyDir, "private.pem"), "--out", anchor); code != 0 {
		t.Fatalf("audit anchor: %d %s %s", code, out, errs)
	}
	if b, _ := os.ReadFile(keep); string(b) != old {
		t.Fatalf("the old anchor was rewritten in place (its hard link now holds %q), not replaced by a new file", b)
	}
	if b, _ := os.ReadFile(anchor); !strings.HasPrefix(string(b), "eyJ") {
		t.Fatalf("new anchor: %q", b)
	}
	ents, _ := os.ReadDir(outDir)
	if len(ents) != 1 {
		t.Fatalf("files left beside the anchor: %v", ents)
	}
	if got := syncs(); !contains(got, outDir) {
		t.Fatalf("the anchor's folder was not fsynced after the rename (synced: %q)", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pairConsistent fails the test unless dir's jwks.json holds the public
// half of dir's private.pem.
func pairConsistent(t *testing.T, dir, when string) {
	t.Helper()
	pemBytes, err := os.ReadFile(filepath.Join(dir, "private.pem"))
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	key, err := trust.ParsePrivateKeyPEM(pemBytes, "")
	if err != nil {
		t.Fatalf("%s: private.pem: %v", when, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "jwks.json"))
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	pubs, err := trust.ParseJWKS(data, abi.Verified, "jwks.json")
	if err != nil {
		t.Fatalf("%s: jwks.json: %v", when, err)
	}
	for _, p := range pubs {
		if tp, err := trust.Thumbprint(p.JWK.Key); err == nil && tp == key.KeyID {
			return
		}
	}
	t.Fatalf("%s: jwks.json (%s) does not hold the public key of private.pem (%s)", when, data, key.KeyID)
}

// keygen --force replaced private.pem, then jwks.json: a crash between the
// two renames left a new private key beside the old public one, so what
// it signed no longer verified with the jwks.json beside it (and sign took
// the thumbprint, not the kid). Now every step leaves a consistent pair:
// jwks.json first gets the new public key added to the old ones, then
// private.pem is replaced, then jwks.json is cut down to the new key; and
// each rename's folder is fsynced.
func TestKeygenForceKeepsPairConsistent(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", dir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	pairConsistent(t, dir, "after the first keygen")
	syncs := recordSyncs(t)
	steps := 0
	old := replaceFileStep
	replaceFileStep = func() {
		steps++
		pairConsistent(t, dir, "after rename "+string(rune('0'+steps)))
	}
	t.Cleanup(func() { replaceFileStep = old })
	if code, _, errs := e.bare("keygen", "--alg", "ES256", "--out", dir, "--force", "--kid", "new"); code != 0 {
		t.Fatalf("keygen --force: %s", errs)
	}
	if steps < 2 {
		t.Fatalf("%d renames seen", steps)
	}
	pairConsistent(t, dir, "at the end")
	data, _ := os.ReadFile(filepath.Join(dir, "jwks.json"))
	pubs, err := trust.ParseJWKS(data, abi.Verified, "jwks.json")
	if err != nil || len(pubs) != 1 || pubs[0].JWK.KeyID != "new" {
		t.Fatalf("final jwks.json should hold the new key alone: %s (%v)", data, err)
	}
	if got := syncs(); !contains(got, dir) {
		t.Fatalf("the key folder was not fsynced after the renames (synced: %q)", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("files left in the key folder: %v", ents)
	}
}

// keygen --force over a folder named jwks.json wrote the new private.pem
// and then failed on jwks.json ("rename …/.jwks.json.tmp-123 …/jwks.json:
// file exists"): the old key was gone, and the new one had no public half
// beside it. A folder at either path is refused before anything is
// written, naming it. audit anchor --out into a missing folder or onto a
// folder named the temporary file ("open …/.a.jws.tmp-4171440443: no such
// file or directory"); it names the file asked for.
func TestReplaceRefusesFoldersFirst(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", dir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "private.pem"))
	if err := os.Remove(filepath.Join(dir, "jwks.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "jwks.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", dir, "--force")
	if code != exitFail || !strings.Contains(errs, filepath.Join(dir, "jwks.json")) || !strings.Contains(errs, "folder") {
		t.Fatalf("keygen --force onto a folder: %d %q", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "private.pem")); string(after) != string(before) {
		t.Fatal("keygen --force replaced private.pem before finding jwks.json a folder")
	}
	if err := os.Remove(filepath.Join(dir, "jwks.json")); err != nil {
		t.Fatal(err)
	}

	id := e.putSource()
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"object_id":"`+id+`"}`); code != 0 {
		t.Fatal(errs)
	}
	other := t.TempDir()
	for _, out := range []string{filepath.Join(other, "missing", "a.jws"), other} {
		code, _, errs := e.run("", "audit", "anchor", "--key", filepath.Join(dir, "private.pem"), "--out", out)
		if code != exitFail || !strings.Contains(errs, "aios-host: "+out) || strings.Contains(errs, ".tmp-") {
			t.Errorf("audit anchor --out %s: %d %q; want an error naming it, not a temporary file", out, code, errs)
		}
	}
}

// keygen --out made the key folder (and any missing above it) without
// fsyncing their parents: the key files' renames were durable in a folder
// whose own entry could be lost in a crash. Each folder it makes is
// synced in its parent.
func TestKeygenSyncsFoldersItMade(t *testing.T) {
	e := newEnv(t)
	top := t.TempDir()
	syncs := recordSyncs(t)
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(top, "keys", "signing")); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	got := syncs()
	for _, want := range []string{top, filepath.Join(top, "keys"), filepath.Join(top, "keys", "signing")} {
		if !contains(got, want) {
			t.Fatalf("keygen did not fsync %s (synced: %q)", want, got)
		}
	}
}
