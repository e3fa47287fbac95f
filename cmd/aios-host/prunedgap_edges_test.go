package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestVerifyNamesRecordsMissingAfterPruned: the oldest rotated file left
// after the host pruned (audit.max_files) removed by hand, `audit verify`
// and `audit show` without FILE said "seq is N, want 1: a record before it
// was deleted", as if the log had to start at record 1, though
// audit.pruned.jsonl says records 1 to P were pruned on purpose: only
// records P+1 to N-1 are missing. They start from the last anchor the host
// kept and name the records missing between it and the oldest file left.
func TestVerifyNamesRecordsMissingAfterPruned(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.data, "audit.jsonl")
	writeRotated(t, path, 40, 2)
	rotated, err := audit.RotatedFiles(path)
	if err != nil || len(rotated) != 2 || rotated[0].First <= 1 {
		t.Fatalf("rotated files after pruning: %v %v", rotated, err)
	}
	pruned := rotated[0].First - 1 // the last record the host pruned
	if err := os.Remove(rotated[0].Path); err != nil {
		t.Fatal(err)
	}
	gap := fmt.Sprintf("records %d to %d are missing", pruned+1, rotated[1].First-1)
	for _, sub := range []string{"verify", "show"} {
		code, _, errs := e.run("", "audit", sub)
		if code != exitFail || !strings.Contains(errs, gap) || strings.Contains(errs, "want 1:") ||
			!strings.Contains(errs, rotated[1].Path+":1:") {
			t.Errorf("audit %s with the oldest file left after pruning removed: %d %q; want it to say %q at %s:1", sub, code, errs, gap, rotated[1].Path)
		}
	}
}
