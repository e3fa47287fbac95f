package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailEscapesTerminalControls: a command's error was printed as it
// is, and an error may name the files of a folder not yet trusted:
// inspect of a provider folder holding a file named with an escape
// sequence listed it raw ("several plugin files (…)"), setting the
// terminal's title. Errors are printed with what a terminal acts on
// escaped, as inspect's output is (TestInspectEscapesTerminalControls).
func TestFailEscapesTerminalControls(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	for _, name := range []string{"a.js", "b\x1b]0;owned\x07\u202e.js"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("// code\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("", "inspect", dir)
	if code != exitFail || out != "" || !strings.Contains(errs, `b\x1b]0;owned\x07\u202e.js`) {
		t.Fatalf("inspect of the folder: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if bad := terminalBytes(errs); bad != nil {
		t.Errorf("inspect printed %q to the terminal:\n%q", bad, errs)
	}
}
