package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditNoLogYetSaysSo: audit verify, show and anchor in a data folder
// no call was made with (a newcomer's first audit verify), or in one that
// does not exist (a mistyped --data), said only "open DATA/audit.jsonl: no
// such file or directory", which reads as a log deleted. They say that no
// log has been written there yet, or that the folder does not exist;
// still exit 1, as a log removed whole looks the same. A log that was
// pruned (audit.pruned.jsonl kept) is not taken for one never written.
func TestAuditNoLogYetSaysSo(t *testing.T) {
	e := newEnv(t)
	key := filepath.Join(t.TempDir(), "k")
	if code, _, errs := e.run("", "keygen", "--alg", "EdDSA", "--out", key); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	missing := filepath.Join(t.TempDir(), "nodata")
	for _, args := range [][]string{{"verify"}, {"show"}, {"anchor", "--key", filepath.Join(key, "private.pem")}} {
		args = append([]string{"audit"}, args...)
		code, out, errs := e.run("", args...)
		want := "no audit log at " + filepath.Join(e.data, "audit.jsonl") + ": no call has been recorded there yet"
		if code != exitFail || out != "" || !strings.Contains(errs, want) || strings.Contains(errs, "no such file") {
			t.Errorf("%q in a fresh data folder: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, code, out, errs, want)
		}
		var stdout, stderr syncBuffer
		code = run(t.Context(), append(args, "--data", missing), strings.NewReader(""), &stdout, &stderr)
		want = "the folder " + missing + " does not exist"
		if code != exitFail || stdout.String() != "" || !strings.Contains(stderr.String(), want) {
			t.Errorf("%q with a --data that does not exist: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, code, stdout.String(), stderr.String(), want)
		}
	}
	// Pruned: the records were there; the failure is the one it was.
	if err := os.WriteFile(filepath.Join(e.data, "audit.pruned.jsonl"), []byte(""), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "audit", "verify"); code != exitFail || strings.Contains(errs, "no call has been recorded") {
		t.Errorf("audit verify with a pruned log: %d %q", code, errs)
	}
	// A log there is verified as before.
	writeRotated(t, filepath.Join(e.data, "audit.jsonl"), 2, 0)
	if err := os.Remove(filepath.Join(e.data, "audit.pruned.jsonl")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run("", "audit", "verify"); code != exitOK || !strings.Contains(out, "2 records") {
		t.Errorf("audit verify of a log: %d %q %q", code, out, errs)
	}
}
