package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesNotJoiningSaySo: a file whose first record does not have the
// seq that follows the file before it (or --after) was reported as if a
// record had been inserted into it or deleted from it ("seq is 1, want 4:
// a record was inserted before it or records were reordered") for a file
// given twice, another log's file, or an --after for a log that starts
// at record 1; nothing was inserted. The first line of a file that
// follows another says that the files do not join and how; a record
// deleted inside a file is still said as before.
func TestFilesNotJoiningSaySo(t *testing.T) {
	path, lines := writeLog(t, 6)
	dir := filepath.Dir(path)
	a := filepath.Join(dir, "a.jsonl") // records 1-3
	b := filepath.Join(dir, "b.jsonl") // records 6
	if err := os.WriteFile(a, join(lines[:3]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, join(lines[5:]), 0o600); err != nil {
		t.Fatal(err)
	}
	var wrong Anchor
	wrong.Seq, wrong.Hash = 2, "sha256:"+strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name  string
		files []string
		o     VerifyOptions
		fails string
		want  []string
	}{
		{"a file given twice", []string{a, a}, VerifyOptions{}, a,
			[]string{"seq is 1, want 4", "the files do not join", "starts at record 1, not after record 3", "given twice"}},
		{"--after for a log from record 1", []string{a}, VerifyOptions{After: wrong}, a,
			[]string{"seq is 1, want 3", "the files do not join", "--after"}},
		{"a file missing between", []string{a, b}, VerifyOptions{}, b,
			[]string{"seq is 6, want 4", "the files do not join", "records 4 to 5 are missing before this file"}},
	} {
		_, _, failed, err := VerifyFiles(tc.files, tc.o)
		var ve *VerifyError
		if !errors.As(err, &ve) || failed != tc.fails || ve.Line != 1 {
			t.Errorf("%s: failed %q, %v; want %s line 1", tc.name, failed, err, tc.fails)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(ve.Reason, w) {
				t.Errorf("%s: %q does not say %q", tc.name, ve.Reason, w)
			}
		}
		if strings.Contains(ve.Reason, "inserted") || strings.Contains(ve.Reason, "deleted") {
			t.Errorf("%s: %q blames an insertion or deletion inside the file", tc.name, ve.Reason)
		}
	}
	// Inside a file, a deleted record is said as before.
	gap := append(join(lines[:2]), join(lines[3:])...)
	_, err := Verify(strings.NewReader(string(gap)))
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Line != 3 || !strings.Contains(ve.Reason, "seq is 4, want 3: a record before it was deleted") {
		t.Errorf("a record deleted inside a file: %v", err)
	}
}
