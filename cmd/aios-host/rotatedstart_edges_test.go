package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditVerifyNamesRecordsCutFromRotatedStart: the oldest rotated file
// with its first record removed failed with "seq is 2, want 1: a record
// before it was deleted" and the hint to give --after "if the files before
// it were removed on purpose", though its name says it starts at record 1
// and no file is missing. verify says its own first record was removed,
// without the --after hint.
func TestAuditVerifyNamesRecordsCutFromRotatedStart(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 20, 0)
	rotated, err := audit.RotatedFiles(path)
	if err != nil || len(rotated) < 2 || rotated[0].First != 1 {
		t.Fatalf("rotated files %v, %v", rotated, err)
	}
	data, err := os.ReadFile(rotated[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rotated[0].Path, data[bytes.IndexByte(data, '\n')+1:], 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "audit", "verify")
	if code != exitFail || !strings.Contains(errs, rotated[0].Path+":1: seq is 2, want 1: its name says it holds records 1 to ") ||
		!strings.Contains(errs, "record 1 was removed from its start") || strings.Contains(errs, "--after") {
		t.Fatalf("verify with the oldest file's first record removed: %d %q", code, errs)
	}
}
