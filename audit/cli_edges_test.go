package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestAnchorBeforeAfter: an anchor of a record at or before --after
// (the record the files follow) was never compared with anything, so a
// wrong anchor passed: `audit verify --after 1681:H --anchor 1681:<other>`
// said OK.
func TestAnchorBeforeAfter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	w, err := Open(path, Options{MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 40; i++ {
		w.Log(entry(i))
		if i%3 == 0 {
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := logFiles(t, path)
	_, after, _, err := VerifyFiles(files[:1], VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rest := files[1:]
	if _, _, _, err := VerifyFiles(rest, VerifyOptions{After: after, Anchor: &after}); err != nil {
		t.Fatalf("anchor equal to --after: %v", err)
	}
	bad := Anchor{Seq: after.Seq, Hash: "sha256:" + strings.Repeat("0", 64)}
	if _, _, _, err := VerifyFiles(rest, VerifyOptions{After: after, Anchor: &bad}); err == nil {
		t.Error("an anchor that contradicts --after passed")
	}
	older := Anchor{Seq: 1, Hash: "sha256:" + strings.Repeat("0", 64)}
	if _, _, _, err := VerifyFiles(rest, VerifyOptions{After: after, Anchor: &older}); err == nil || !strings.Contains(err.Error(), "before") {
		t.Errorf("an anchor before the files checked: err = %v", err)
	}
}

// TestConvertedLineEndings: a log whose lines were converted to CRLF
// (an editor, git autocrlf) or saved with a byte order mark was reported
// as "edited" or as an invalid character 'ï'; the reason now says what
// happened to the file.
func TestConvertedLineEndings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
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
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	if _, err := Verify(bytes.NewReader(crlf)); err == nil || !strings.Contains(err.Error(), "CRLF") {
		t.Errorf("CRLF log: %v", err)
	}
	bom := append([]byte("\xef\xbb\xbf"), data...)
	if _, err := Verify(bytes.NewReader(bom)); err == nil || !strings.Contains(err.Error(), "byte order mark") {
		t.Errorf("log with a BOM: %v", err)
	}
}

// TestRotationIsNotAMove: the writer's own rotation never looks like
// a moved log to checkPlace.
func TestRotationIsNotAMove(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var buf testutil.SyncBuffer
	w, err := Open(path, Options{MaxBytes: 2000, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 200; i++ {
		w.Log(entry(i))
		if i%3 == 0 {
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "no longer") || !strings.Contains(buf.String(), "rotated") {
		t.Errorf("log: %s", buf.String())
	}
}
