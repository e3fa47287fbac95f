package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
func TestProbeAnchorOutReplacedAtomically(t *testing.T) {
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
