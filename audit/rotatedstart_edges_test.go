package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyBlamesRotatedFileCutAtStart: a rotated file whose first
// records were removed (by hand, an editor) failed at its first line with
// "the files do not join: records 3 to 3 are missing before this file (a
// file before it removed or not given …)", sending the reader to the file
// before it, which was whole, when the file's own name says it starts at
// record 3. The file is blamed now: its name says it holds records 3 to 4,
// it starts at record 4, so record 3 was removed from its start (and, for
// the first file, no --after is suggested: no file before it is missing).
func TestVerifyBlamesRotatedFileCutAtStart(t *testing.T) {
	dir := t.TempDir()
	_, lines := writeLog(t, 6)
	a := filepath.Join(dir, "audit.1-2.jsonl")
	b := filepath.Join(dir, "audit.3-4.jsonl")
	c := filepath.Join(dir, "audit.jsonl")
	os.WriteFile(a, join(lines[:2]), 0o600)
	os.WriteFile(b, join(lines[3:4]), 0o600) // record 3 removed
	os.WriteFile(c, join(lines[4:]), 0o600)
	_, _, failed, err := VerifyFiles([]string{a, b, c}, VerifyOptions{})
	var ve *VerifyError
	want := "its name says it holds records 3 to 4, but it starts at record 4: record 3 was removed from its start"
	if !errors.As(err, &ve) || failed != b || ve.Line != 1 || !strings.Contains(ve.Reason, want) || strings.Contains(ve.Reason, "before this file") {
		t.Fatalf("VerifyFiles: failed %s, %v; want %s line 1: %s", failed, err, b, want)
	}

	// The first file of the log, its first two records removed.
	first := filepath.Join(dir, "audit.1-4.jsonl")
	os.Remove(a)
	os.Remove(b)
	os.WriteFile(first, join(lines[2:4]), 0o600)
	_, _, failed, err = VerifyFiles([]string{first, c}, VerifyOptions{})
	want = "its name says it holds records 1 to 4, but it starts at record 3: records 1 to 2 were removed from its start"
	if !errors.As(err, &ve) || failed != first || ve.Line != 1 || !strings.Contains(ve.Reason, want) {
		t.Fatalf("VerifyFiles: failed %s, %v; want %s line 1: %s", failed, err, first, want)
	}

	// A file not named like a rotated one is blamed as before.
	_, _, failed, err = VerifyFiles([]string{c}, VerifyOptions{After: Anchor{Seq: 3, Hash: "sha256:x"}})
	if !errors.As(err, &ve) || failed != c || !strings.Contains(ve.Reason, "record 4 is missing before this file") {
		t.Fatalf("VerifyFiles of the current file: failed %s, %v", failed, err)
	}
}
