package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProbeRepairKeepsWholeRecordWithoutNewline: a crash can cut a write
// just before a record's newline (the newline in a page that did not reach
// the disk). The record is whole and chained, yet Open (RepairTail) cut it
// as "incomplete": the record of a call that ran was lost. Now the newline
// is added and the chain goes on after it; only a record that is not whole
// or does not follow the one before is cut.
func TestProbeRepairKeepsWholeRecordWithoutNewline(t *testing.T) {
	_, lines := writeLog(t, 3)
	for _, c := range []struct {
		name    string
		content []byte
		want    int // records after Open and one more Log
	}{
		{"last of three", join(lines)[:len(join(lines))-1], 4},
		{"only record", lines[0][:len(lines[0])-1], 2},
		// record 3 does not follow record 1: not the log's next record, cut
		{"not chained", append(join(lines[:1]), lines[2][:len(lines[2])-1]...), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			if err := os.WriteFile(path, c.content, 0o600); err != nil {
				t.Fatal(err)
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
