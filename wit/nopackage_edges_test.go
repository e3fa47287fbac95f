package wit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoPackageHeaderNamesItem: WIT without a `package` header was refused
// naming only the file or folder ("dir: no `package` header …"), unlike
// every other error (file:line:col); in a folder of many files the user
// had to find the one at fault. The error now points at the first
// top-level item (where its gate or keyword starts), in the file that has it.
func TestNoPackageHeaderNamesItem(t *testing.T) {
	_, err := ParseSource("x.wit", "// c\n\n@unstable(feature = f)\ninterface i {}\n", Options{})
	var we *Error
	if !errors.As(err, &we) || we.Pos.String() != "x.wit:3:1" || !strings.Contains(err.Error(), "no `package` header") {
		t.Errorf("got %v, want x.wit:3:1: no `package` header …", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.wit"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.wit"), []byte("\n\n  world w {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ParseDir(dir, Options{})
	if !errors.As(err, &we) || we.Pos.String() != filepath.Join(dir, "b.wit")+":3:3" {
		t.Errorf("got %v, want b.wit:3:3", err)
	}
	// A file with nothing in it has no place to point at.
	if _, err := ParseSource("e.wit", "\n", Options{}); err == nil || !strings.Contains(err.Error(), "e.wit: no `package` header") {
		t.Errorf("empty file: %v", err)
	}
}

// TestCorpusRefusalsHavePositions: every parse-fail input of the corpus
// with any text is refused with a position (file:line:col), not the file
// alone.
func TestCorpusRefusalsHavePositions(t *testing.T) {
	dir := corpusDir(t)
	for _, p := range corpusInputs(t, filepath.Join(dir, "parse-fail")) {
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == "" {
			continue
		}
		_, err := Parse(p, corpusOpts)
		var we *Error
		if !errors.As(err, &we) || we.Pos.Line == 0 {
			t.Errorf("%s: %v: no line:col", filepath.Base(p), err)
		}
	}
}
