package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyNamesFilesOutOfOrder: rotated files given in the order a
// shell's glob sorts them (audit verify data/audit.*-*.jsonl: by name,
// so audit.11-20.jsonl before audit.3-10.jsonl) failed with "records 3 to
// 10 are missing before this file (a file before it removed or not
// given …)", though the file that holds them was given, after it. verify
// names that file and says the files are out of order.
func TestVerifyNamesFilesOutOfOrder(t *testing.T) {
	dir := t.TempDir()
	_, lines := writeLog(t, 12)
	a := filepath.Join(dir, "audit.1-2.jsonl")
	b := filepath.Join(dir, "audit.3-10.jsonl")
	c := filepath.Join(dir, "audit.11-12.jsonl")
	os.WriteFile(a, join(lines[:2]), 0o600)
	os.WriteFile(b, join(lines[2:10]), 0o600)
	os.WriteFile(c, join(lines[10:]), 0o600)
	_, _, failed, err := VerifyFiles([]string{a, c, b}, VerifyOptions{})
	var ve *VerifyError
	if !errors.As(err, &ve) || failed != c || ve.Line != 1 || !strings.Contains(ve.Reason, b+", which starts at record 3, is given after it: the files are out of order") {
		t.Fatalf("VerifyFiles out of order: failed %s, %v", failed, err)
	}
	if n, _, _, err := VerifyFiles([]string{a, b, c}, VerifyOptions{}); err != nil || n != 12 {
		t.Fatalf("in order: %d, %v", n, err)
	}
}
