package wit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wit")
	bad := filepath.Join(dir, "bad.wit")
	os.WriteFile(good, []byte("package a:b;\ninterface i { f: func(x: u32) -> string; }\n"), 0o644)
	os.WriteFile(bad, []byte("package a:b;\ninterface i {\n  f: func(x: u32) -> nope;\n}\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		out    string
		errOut string
	}{
		{"ok", []string{good}, 0, "f: func(x: u32) -> string;", ""},
		{"error with position", []string{bad}, 1, "", "bad.wit:3:22: type `nope` does not exist"},
		{"usage", nil, 2, "", "usage: aios-host wit"},
		{"missing file", []string{filepath.Join(dir, "none.wit")}, 1, "", "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Command(tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.errOut) {
				t.Fatalf("code %d out %q err %q", code, out.String(), errb.String())
			}
		})
	}
}
