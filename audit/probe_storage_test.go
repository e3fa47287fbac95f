package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbePrunedFileTornLine: a crash (or a full disk) while the writer
// appended a line to audit.pruned.jsonl leaves a last line without its
// newline. The file it names was not deleted (the line is fsynced before
// the deletion), so nothing depends on it. Before, the torn line made
// every later pruning fail ("not a pruned-file record: unexpected end of
// JSON input", the log grew without bound) and the next append glued a
// line onto it; `audit verify` of what remained failed the same way.
func TestProbePrunedFileTornLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	logRotated(t, path, 1, 40, 1, nil)
	f, err := os.OpenFile(PrunedName(path), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(`{"file":"audit.37-4`)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A reader (audit verify) before the host starts again.
	rot, _ := RotatedFiles(path)
	if _, ok, err := PrunedAnchor(path, rot[0].First-1); err != nil || !ok {
		t.Fatalf("PrunedAnchor with a torn last line: ok %v, %v", ok, err)
	}
	var logBuf bytes.Buffer
	logRotated(t, path, 41, 40, 1, slog.New(slog.NewTextHandler(&logBuf, nil)))
	if strings.Contains(logBuf.String(), "not pruned") {
		t.Fatalf("pruning stopped at the torn line:\n%s", logBuf.String())
	}
	rot, _ = RotatedFiles(path)
	if len(rot) != 1 {
		t.Fatalf("%d rotated files left, want 1", len(rot))
	}
	a, ok, err := PrunedAnchor(path, rot[0].First-1)
	if err != nil || !ok {
		t.Fatalf("PrunedAnchor(%d) = %v, %v, %v", rot[0].First-1, a, ok, err)
	}
	if _, last, _, err := VerifyFiles(logFiles(t, path), VerifyOptions{After: a}); err != nil || last.Seq != 80 {
		t.Fatalf("the files left after %v: last %v, %v", a, last, err)
	}
	data, _ := os.ReadFile(PrunedName(path))
	if bytes.Contains(data, []byte(`"audit.37-4{`)) || !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("pruned file:\n%s", data)
	}
}
