package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrunedFileTornLine: a crash (or a full disk) while the writer
// appended a line to audit.pruned.jsonl leaves a last line without its
// newline. The file it names was not deleted (the line is fsynced before
// the deletion), so nothing depends on it. Before, the torn line made
// every later pruning fail ("not a pruned-file record: unexpected end of
// JSON input", the log grew without bound) and the next append glued a
// line onto it; `audit verify` of what remained failed the same way.
func TestPrunedFileTornLine(t *testing.T) {
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

// TestLogTruncatedUnderHost: logrotate's copytruncate (or a person)
// empties the log while the host runs. Before, the writer went on writing
// at its old offset: the file began with a hole of NUL bytes that `audit
// verify` reported as "invalid character '\x00'" on line 1, nothing was
// logged, the next start took the file as it was, and a rotation named the
// file after records it no longer held. Now the records go to the file's
// new end, the writer says at Warn that the log was cut, and the copy and
// the file verify as one chain, across a rotation and a restart.
func TestLogTruncatedUnderHost(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logBuf, nil))
	w, err := Open(path, Options{MaxBytes: 4000, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		w.Log(entry(i))
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	// copytruncate: copy, then truncate in place.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := path + ".1"
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	for i := 6; i <= 8; i++ {
		w.Log(entry(i))
	}
	if err := w.Sync(); err != nil { // notices the cut
		t.Fatal(err)
	}
	for i := 9; i <= 30; i++ { // past MaxBytes: a rotation
		w.Log(entry(i))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logBuf.String(), "truncated") {
		t.Errorf("no warning about the cut log:\n%s", logBuf.String())
	}
	files := append([]string{copyPath}, logFiles(t, path)...)
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.IndexByte(b, 0) >= 0 {
			t.Errorf("%s holds NUL bytes", f)
		}
	}
	rot, _ := RotatedFiles(path)
	if len(rot) == 0 || rot[0].First != 6 {
		t.Fatalf("rotated files %v, want the first from record 6", rot)
	}
	if _, last, failed, err := VerifyFiles(files, VerifyOptions{}); err != nil || last.Seq != 30 {
		t.Fatalf("the copy and the log: last %v, %s: %v", last, failed, err)
	}
	// A restart continues the chain.
	w, err = Open(path, Options{MaxBytes: 4000, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(31))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files = append([]string{copyPath}, logFiles(t, path)...)
	if _, last, failed, err := VerifyFiles(files, VerifyOptions{}); err != nil || last.Seq != 31 {
		t.Fatalf("after a restart: last %v, %s: %v", last, failed, err)
	}
}
