package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAnchorOutRefusesLogFile: `audit anchor --out` naming a file of the
// log being anchored (the configured log, a rotated file, a FILE given; a
// slip of tab completion) verified the log, then replaced that file with
// the signed anchor: the records the anchor was to vouch for were gone
// (and --out naming the key replaced the key). It is refused (exit 2)
// naming the file, and the log and the key are left as they were.
func TestAnchorOutRefusesLogFile(t *testing.T) {
	e := newEnv(t)
	keyDir := filepath.Join(t.TempDir(), "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	key := filepath.Join(keyDir, "private.pem")
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2"} {
		w.Log(audit.Entry{CallID: id, Caller: "cli", Tool: "t", Version: "1.0.0"})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "log-link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	keyBefore, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, what string
		args       []string
	}{
		{"the configured log", "the log file", []string{"--out", path}},
		{"a FILE given", "the log file", []string{"--out", path, path}},
		{"a link to the log", "the log file", []string{"--out", link}},
		{"the signing key", "the key file", []string{"--out", key}},
	} {
		args := append([]string{"audit", "anchor", "--key", key}, tc.args...)
		code, out, errs := e.run("", args...)
		if code != exitUsage || !strings.Contains(errs, tc.args[1]) || !strings.Contains(errs, tc.what) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d naming %s as %s", tc.name, code, out, errs, exitUsage, tc.args[1], tc.what)
		}
		if got, _ := os.ReadFile(path); string(got) != string(before) {
			t.Fatalf("%s: the log was replaced: it now holds %q", tc.name, got)
		}
		if got, _ := os.ReadFile(key); string(got) != string(keyBefore) {
			t.Fatalf("%s: the key was replaced: it now holds %q", tc.name, got)
		}
	}
	// An --out elsewhere still works.
	out := filepath.Join(t.TempDir(), "anchor.jws")
	if code, stdout, errs := e.run("", "audit", "anchor", "--key", key, "--out", out); code != exitOK {
		t.Fatalf("audit anchor --out elsewhere: %d %s %s", code, stdout, errs)
	}
}
