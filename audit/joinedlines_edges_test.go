package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyNamesRecordsJoinedOnOneLine: two records on one line (the
// line break between them removed: an editor's "join lines", a script
// that stripped newlines) failed as "trailing data after the record:
// \"{\\\"call_id\\\":\\\"c2\\\",\\\"cal\"", which named neither what
// followed nor what happened; Open refused the log so ended with it too.
// Both say a second record follows on the line and its line break was
// removed.
func TestVerifyNamesRecordsJoinedOnOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		w.Log(entry(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	const want = "line 1 holds two records: the line break after the first was removed"
	joined := bytes.Join([][]byte{bytes.TrimSuffix(lines[0], []byte("\n")), lines[1], lines[2]}, nil)
	if _, err := Verify(bytes.NewReader(joined)); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(want, "line 1 ")) {
		t.Errorf("records 1 and 2 on one line: %v; want %q", err, want)
	}
	// The last two joined: Open refuses the log, saying so.
	joinedTail := bytes.Join([][]byte{lines[0], bytes.TrimSuffix(lines[1], []byte("\n")), lines[2]}, nil)
	if err := os.WriteFile(path, joinedTail, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{RepairTail: true}); err == nil || !strings.Contains(err.Error(), "holds two records") {
		t.Errorf("Open of a log whose last two records are on one line: %v", err)
	}
	// Other trailing data is still called so.
	other := bytes.Replace(data, []byte("}\n"), []byte("}x\n"), 1)
	if _, err := Verify(bytes.NewReader(other)); err == nil || !strings.Contains(err.Error(), "trailing data after the record") {
		t.Errorf("trailing data: %v", err)
	}
}
