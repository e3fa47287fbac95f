package wit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuplicateNamePointsAtLaterAndNamesEarlier: a top-level `use` whose
// name an interface or world of the file also takes was refused at the
// `use`, even when the interface came later (wasm-tools points at the later
// one, corpus parse-fail/use-shadow1.wit:7:11), and neither that error nor
// "duplicate item named" said where the other one is, which for two files
// of a package folder left the user to search. The error is at the later of
// the two and names the place of the earlier.
func TestDuplicateNamePointsAtLaterAndNamesEarlier(t *testing.T) {
	for _, tc := range []struct{ src, at, other string }{
		// The corpus's use-shadow1: the interface comes after the use.
		{"package foo:foo;\n\nuse foo as bar;\n\ninterface foo {}\n\ninterface bar {}\n", "x.wit:7:11", "x.wit:3:12"},
		// The use comes after the interface.
		{"package foo:foo;\n\ninterface bar {}\n\ninterface foo {}\n\nuse foo as bar;\n", "x.wit:7:12", "x.wit:3:11"},
		// Two uses of one name.
		{"package foo:foo;\ninterface foo {}\ninterface baz {}\nuse foo as bar;\nuse baz as bar;\n", "x.wit:5:12", "x.wit:4:12"},
		// Two interfaces.
		{"package foo:foo;\ninterface bar {}\n\ninterface bar {}\n", "x.wit:4:11", "x.wit:2:11"},
	} {
		_, err := ParseSource("x.wit", tc.src, Options{})
		var we *Error
		if !errors.As(err, &we) || we.Pos.String() != tc.at || !strings.Contains(we.Msg, tc.other) || !strings.Contains(we.Msg, "`bar`") {
			t.Errorf("%q: %v; want an error at %s naming %s", tc.src, err, tc.at, tc.other)
		}
	}
	// Two files of a folder: the other file is named.
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.wit": "package foo:foo;\ninterface bar {}\n",
		"b.wit": "interface bar {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Parse(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "b.wit")+":1:11: ") || !strings.Contains(err.Error(), filepath.Join(dir, "a.wit")+":2:11") {
		t.Errorf("folder: %v; want an error at b.wit:1:11 naming a.wit:2:11", err)
	}
}
