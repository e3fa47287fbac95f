package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairKeepsWholeRecordBeforeZeros: a power loss that lost the page
// a record's newline began (the record ended at a page's end) leaves the
// whole record, then zeros where the lost pages were. Open cut the record
// with the zeros ("cutting an incomplete last record": the record of a
// call that ran, gone), and verify called it "a crash during a write, or
// the log was cut". As for a whole record that lacks only its newline,
// the record is kept when it follows the one before it: the zeros are cut
// and the newline added; verify says so. What is not a whole record, or
// does not follow, is still cut.
func TestRepairKeepsWholeRecordBeforeZeros(t *testing.T) {
	_, lines := writeLog(t, 3)
	zeros := make([]byte, 4095)
	whole := join(lines)
	for _, c := range []struct {
		name    string
		content []byte
		want    int  // records after Open and one more Log
		kept    bool // verify before Open says the record is whole
	}{
		{"last of three", append(bytes.Clone(whole[:len(whole)-1]), zeros...), 4, true},
		{"only record", append(bytes.Clone(lines[0][:len(lines[0])-1]), zeros...), 2, true},
		// record 3 does not follow record 1: not the log's next record, cut
		{"not chained", append(append(join(lines[:1]), lines[2][:len(lines[2])-1]...), zeros...), 2, true},
		{"part of a record", append(append(join(lines[:2]), lines[2][:40]...), zeros...), 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(path, c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Verify(bytes.NewReader(c.content))
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify before Open: %v", err)
			}
			if says := strings.Contains(ve.Reason, "the record is whole") && strings.Contains(ve.Reason, "4095 zero bytes follow it"); says != c.kept {
				t.Errorf("Verify before Open: %q; want it to say the record is whole and zeros follow: %v", ve.Reason, c.kept)
			}
			w, err := Open(path, Options{RepairTail: true})
			if err != nil {
				t.Fatal(err)
			}
			w.Log(entry(9))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if n, err := Verify(bytes.NewReader(data)); err != nil || n != c.want {
				t.Fatalf("after Open and one record: Verify = %d, %v; want %d records", n, err, c.want)
			}
		})
	}
}
