package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallStringResultEscapedOnTerminal: a string result was printed as
// the tool wrote it, so a hostile tool's successful answer set the
// terminal's title and colours (and reordered the text) of the user who
// called it, where its error message is escaped
// (TestCallErrorEscapesTerminalControls). On a terminal it is printed
// escaped, newlines and tabs kept; to a file or a pipe as it is, the
// tool's text unchanged.
func TestCallStringResultEscapedOnTerminal(t *testing.T) {
	e := newEnv(t)
	src := `aios.provider({ id: 'org.example.hostile-text' });
aios.registerTool({ name: 'hostile-text', parameters: {} },
  async () => 'line1\u001b]0;owned\u0007 \u001b[31mRED\u001b[0m\n\tline2 \u202eevil\u202c \u009b31m');
`
	if err := os.WriteFile(filepath.Join(e.plugins, "hostile-text.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := "line1\x1b]0;owned\x07 \x1b[31mRED\x1b[0m\n\tline2 \u202eevil\u202c \u009b31m\n"

	// A pipe (the tests' buffer): as the tool wrote it.
	code, out, errs := e.run("", "call", "hostile-text")
	if code != exitOK || out != raw {
		t.Fatalf("call to a pipe: exit %d, stdout %q, stderr %q; want %q", code, out, errs, raw)
	}

	old := stdoutIsTerminal
	t.Cleanup(func() { stdoutIsTerminal = old })
	stdoutIsTerminal = func(io.Writer) bool { return true }
	code, out, errs = e.run("", "call", "hostile-text")
	want := `line1\x1b]0;owned\x07 \x1b[31mRED\x1b[0m` + "\n\tline2 " + `\u202eevil\u202c \u009b31m` + "\n"
	if code != exitOK || out != want {
		t.Fatalf("call to a terminal: exit %d, stdout %q, stderr %q; want %q", code, out, errs, want)
	}
	if bad := terminalBytes(out); bad != nil {
		t.Errorf("call printed %q to the terminal:\n%q", bad, out)
	}
}

// TestStdoutIsTerminal: a character device (/dev/null, as a terminal is)
// is taken for a terminal, through the command's errWriter; a regular
// file and a buffer are not.
func TestStdoutIsTerminal(t *testing.T) {
	if f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 && !stdoutIsTerminal(&errWriter{w: f}) {
			t.Errorf("%s is a character device: taken for no terminal", os.DevNull)
		}
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if stdoutIsTerminal(&errWriter{w: f}) || stdoutIsTerminal(&strings.Builder{}) {
		t.Error("a regular file or a buffer taken for a terminal")
	}
}
