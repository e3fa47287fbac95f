package audit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestVerifyNamesRepeatedRecords: a record given twice in a row (a line
// pasted again) and a log appended to itself (cat audit.jsonl >>
// audit.jsonl, a backup restored by appending it) failed as "seq is 1,
// want 4: a record was inserted before it or records were reordered",
// sending the reader to look for an insertion before the line. verify says
// what the line is: the record of the line before it again, or a log's
// first record in the middle of the file.
func TestVerifyNamesRepeatedRecords(t *testing.T) {
	_, lines := writeLog(t, 3)
	for _, tc := range []struct {
		name string
		data []byte
		line int
		want string
	}{
		{"line repeated", join([][]byte{lines[0], lines[1], lines[1], lines[2]}), 3, "seq is 2, want 3: the same record as line 2, given twice"},
		{"log appended to itself", append(join(lines), join(lines)...), 4, "seq is 1, want 4: the first record of a log, after record 3: a log (this one again, or another) was appended to this file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Verify(bytes.NewReader(tc.data))
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Line != tc.line || !strings.Contains(ve.Reason, tc.want) || n != tc.line-1 {
				t.Fatalf("Verify: %d, %v; want line %d: %s", n, err, tc.line, tc.want)
			}
		})
	}
	// A record moved down (reordered) is still said as before.
	_, err := Verify(bytes.NewReader(join([][]byte{lines[1], lines[0], lines[2]})))
	if err == nil || !strings.Contains(err.Error(), "seq is 2, want 1") {
		t.Fatalf("reordered: %v", err)
	}
}
