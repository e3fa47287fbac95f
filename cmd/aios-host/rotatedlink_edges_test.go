package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditVerifyNamesDanglingRotatedLink: a rotated file of the log that
// is a link to a file no longer there (the disk it pointed to not mounted,
// an archive moved) failed verify with "open …: no such file or directory",
// of a file ls lists. It says the file is a link and to what, not there.
func TestAuditVerifyNamesDanglingRotatedLink(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	w, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(audit.Entry{CallID: "c1", Caller: "cli", Tool: "t", Version: "1.0.0"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "archive", "audit.1-5.jsonl")
	link := filepath.Join(e.data, "audit.1-5.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "audit", "verify")
	if code != exitFail || !strings.Contains(errs, link) || !strings.Contains(errs, "a link to "+target+", which is not there") {
		t.Errorf("audit verify: exit %d, stdout %q, stderr %q; want exit %d naming the link and its missing target", code, out, errs, exitFail)
	}
}
