package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A client chooses the tool name of a NotFound call and the parent_id of
// tools/call (up to the 8 MiB request limit): a record carrying such a
// field was longer than MaxLineBytes, so `audit verify` failed on it and
// could check nothing after it, and a restart could not name its file.
func TestProbeHugeFieldsStayVerifiable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("\x01", 2<<20) // escaped six-fold
	e := entry(1)
	e.Tool, e.ParentID, e.CallID = huge, "client:"+huge, huge
	e.Outcome, e.Error = "NotFound", huge
	w.Log(e)
	w.Log(entry(2))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Verify(bytes.NewReader(data)); err != nil || n != 2 {
		t.Fatalf("Verify = %d, %v; want 2 records", n, err)
	}
	// A restart continues the chain and names the file's first record.
	w, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.fileFirst != 1 || w.seq != 2 {
		t.Fatalf("after reopen fileFirst=%d seq=%d, want 1 and 2", w.fileFirst, w.seq)
	}
}
