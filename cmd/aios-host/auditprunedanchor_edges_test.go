package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAuditVerifyAnchorOfPrunedRecord: an anchor kept of a record that
// the host has since pruned (audit.max_files deleted its file) failed
// with "names a record before the files checked (they follow record 28):
// give the files that hold it", asking for files the host deleted. It
// says the record was pruned, so the anchor cannot be checked, and
// compares it with the anchor the host kept of that record, when there
// is one (no proof either way: it still fails).
func TestAuditVerifyAnchorOfPrunedRecord(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 4, 0) // audit.1-4.jsonl, then an empty audit.jsonl
	code, out, errs := e.run("", "audit", "verify")
	m := regexp.MustCompile(`anchor (4:sha256:[0-9a-f]{64})`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("verify: %d %q %q", code, out, errs)
	}
	kept := m[1]
	writeRotated(t, path, 30, 1) // records 5 to 34; every rotated file but the newest pruned
	code, out, errs = e.run("", "audit", "verify")
	m = regexp.MustCompile(`anchor (34:sha256:[0-9a-f]{64})`).FindStringSubmatch(out)
	if code != 0 || m == nil || !strings.Contains(errs, "were pruned") {
		t.Fatalf("verify of the pruned log: %d %q %q", code, out, errs)
	}
	if code, out, errs := e.run("", "audit", "verify", "--anchor", m[1]); code != 0 {
		t.Fatalf("an anchor of a record still in the log: %d %q %q", code, out, errs)
	}
	for _, c := range []struct{ anchor, want string }{
		{kept, "is the same, but that file is no proof"},
		{"4:sha256:" + strings.Repeat("0", 64), "differs: the log (or the pruned file) was rewritten"},
		{"2:sha256:" + strings.Repeat("0", 64), "names record 2, which was in a rotated file the host deleted"},
	} {
		code, out, errs := e.run("", "audit", "verify", "--anchor", c.anchor)
		if code != exitFail || strings.Contains(errs, "give the files that hold it") || !strings.Contains(errs, "the host deleted (audit.max_files)") ||
			!strings.Contains(errs, "cannot be checked") || !strings.Contains(errs, c.want) {
			t.Errorf("--anchor %s of a pruned record: %d %q %q; want exit 1 saying it was pruned, %q", c.anchor, code, out, errs, c.want)
		}
	}
}
