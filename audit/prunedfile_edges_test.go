package audit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestVerifyNamesPrunedAnchorsFile: the file of pruned files' anchors
// (audit.pruned.jsonl, audit.max_files) given to verify as a log file, as
// `audit verify data/audit*.jsonl` does, failed as "not a valid record:
// json: unknown field \"file\"". verify says what the file is: the
// anchors of pruned files, not records, to be left out.
func TestVerifyNamesPrunedAnchorsFile(t *testing.T) {
	line := `{"file":"audit.1-1952.jsonl","first":1,"last":1952,"anchor":"1952:sha256:fa54fca8cd493af5b5ad02f4c36d2db3667ea5ad492d08b476379cae3446a329","pruned_at":"2026-12-05T02:44:58Z"}` + "\n"
	_, err := Verify(bytes.NewReader([]byte(line)))
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Line != 1 || !strings.Contains(ve.Reason, "the anchor of a pruned file (audit.max_files)") || !strings.Contains(ve.Reason, "leave it out") {
		t.Fatalf("Verify of a pruned file's line: %v", err)
	}
}
