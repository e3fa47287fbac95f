package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditVerifyCurrentFileNamesItsRotatedFiles: audit verify given the
// log's current file (the path in the config, as an operator types it)
// after rotation failed with "seq is N, want 1: a record before it was
// deleted" and the hint to give --after "if the files before it were
// removed on purpose", though they are there beside it and nothing was
// removed. It names the rotated files it follows and says to verify
// without FILE, or to give them before it.
func TestAuditVerifyCurrentFileNamesItsRotatedFiles(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 21, 0)
	rotated, err := audit.RotatedFiles(path)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("the current file: %v, %v; want records in it", st, err)
	}
	if err != nil || len(rotated) < 2 {
		t.Fatalf("rotated files %v, %v", rotated, err)
	}
	code, _, errs := e.run("", "audit", "verify", path)
	if code != exitFail || !strings.Contains(errs, "follows the files rotation split off it") ||
		!strings.Contains(errs, rotated[0].Path) || !strings.Contains(errs, rotated[len(rotated)-1].Path) ||
		!strings.Contains(errs, "audit verify without FILE") {
		t.Fatalf("verify of the current file alone: %d %q", code, errs)
	}
	if code, out, errs := e.run("", "audit", "verify"); code != 0 || !strings.Contains(out, " 21 records") {
		t.Fatalf("verify without FILE: %d %q %q", code, out, errs)
	}
}
