package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyRotatedFileCutMidRecordIsNoCrash: a rotated file
// (audit.3-4.jsonl) cut in the middle of its last record, or missing only
// its last newline, was said to be "a crash during a write" or "a crash
// just before it; … the host adds the newline when it next opens the log
// (audit.repair_tail)". Neither can be: the writer fsyncs a file whole
// before it renames it so, and never writes to it or repairs it after.
// It is said to be cut after its rotation, naming the record and the
// range the file's name gives, and no repair is promised.
func TestVerifyRotatedFileCutMidRecordIsNoCrash(t *testing.T) {
	dir := t.TempDir()
	_, lines := writeLog(t, 6)
	a := filepath.Join(dir, "audit.1-2.jsonl")
	b := filepath.Join(dir, "audit.3-4.jsonl")
	c := filepath.Join(dir, "audit.jsonl")
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"mid-record", append(bytes.Clone(lines[2]), lines[3][:len(lines[3])/2]...)},
		{"newline only", bytes.TrimSuffix(join(lines[2:4]), []byte("\n"))},
		{"zeros after", append(bytes.TrimSuffix(join(lines[2:4]), []byte("\n")), make([]byte, 100)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(a, join(lines[:2]), 0o600)
			os.WriteFile(b, tc.b, 0o600)
			os.WriteFile(c, join(lines[4:]), 0o600)
			for _, files := range [][]string{{a, b, c}, {a, b}} {
				_, _, failed, err := VerifyFiles(files, VerifyOptions{})
				var ve *VerifyError
				if !errors.As(err, &ve) || failed != b || ve.Line != 2 {
					t.Fatalf("VerifyFiles(%v): failed %s, %v; want %s line 2", files, failed, err, b)
				}
				for _, s := range []string{"a crash", "power loss", "repair_tail", "opens the log"} {
					if strings.Contains(ve.Reason, s) {
						t.Errorf("VerifyFiles(%v): %q blames %q, which cannot leave a rotated file so", files, ve.Reason, s)
					}
				}
				if !strings.Contains(ve.Reason, "record 4") || !strings.Contains(ve.Reason, "records 3 to 4") {
					t.Errorf("VerifyFiles(%v): %q does not name record 4 and the range its name says", files, ve.Reason)
				}
			}
		})
	}
}
