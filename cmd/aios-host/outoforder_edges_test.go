package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditVerifyFilesOutOfOrderNoAfterHint: rotated files given oldest
// last (as a shell's glob can sort them) failed at the first file with "a
// record before it was deleted" and the hint to give --after "if the
// files before it were removed on purpose", though the file that holds
// them was given. verify names that file, says the files are out of
// order, and gives no --after hint.
func TestAuditVerifyFilesOutOfOrderNoAfterHint(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 21, 0)
	rotated, err := audit.RotatedFiles(path)
	if err != nil || len(rotated) < 2 {
		t.Fatalf("rotated files %v, %v", rotated, err)
	}
	args := []string{"audit", "verify", rotated[1].Path, rotated[0].Path}
	for _, r := range rotated[2:] {
		args = append(args, r.Path)
	}
	code, _, errs := e.run("", append(args, path)...)
	if code != exitFail || !strings.Contains(errs, rotated[0].Path+", which starts at record 1, is given after it: the files are out of order") || strings.Contains(errs, "--after") {
		t.Fatalf("verify with the oldest file second: %d %q", code, errs)
	}
}
