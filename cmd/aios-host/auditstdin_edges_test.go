package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditVerifyStdin: `audit verify -` and `audit show -` read the log
// from standard input (a rotated file decompressed: zcat … | aios-host
// audit verify -), as call and space put take "-"; they failed "open -:
// no such file or directory" (p186's leftover). A damaged log on standard
// input fails as a file does.
func TestAuditVerifyStdin(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
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
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run(string(data), "audit", "verify", "-"); code != exitOK || !strings.Contains(out+errs, "2 records") {
		t.Fatalf("audit verify - of a good log: exit %d, %q %q", code, out, errs)
	}
	if code, out, errs := e.run(string(data), "audit", "show", "-"); code != exitOK || !strings.Contains(out, "c2") {
		t.Fatalf("audit show -: exit %d, %q %q", code, out, errs)
	}
	bad := strings.Replace(string(data), `"c2"`, `"c3"`, 1)
	if code, _, errs := e.run(bad, "audit", "verify", "-"); code != exitFail {
		t.Fatalf("audit verify - of a changed log: exit %d, %q; want %d", code, errs, exitFail)
	}
	if code, _, errs := e.run("", "audit", "verify", "-", "-"); code != exitUsage {
		t.Fatalf("audit verify - -: exit %d, %q; want %d", code, errs, exitUsage)
	}
}
