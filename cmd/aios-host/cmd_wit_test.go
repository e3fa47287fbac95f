package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestWitCommand: `aios-host wit` prints resolved WIT from a .wit file or
// a folder whose deps/ hold binary (.wasm) and text (.wat) WIT packages,
// reports errors with their position, and points a component at
// `aios-host inspect`.
func TestWitCommand(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wit")
	bad := filepath.Join(dir, "bad.wit")
	if err := os.WriteFile(good, []byte("package a:b;\ninterface i { f: func(x: u32) -> string; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("package a:b;\ninterface i {\n  f: func(x: u32) -> nope;\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A package whose deps are in every form, as the WIT corpus's
	// kinds-of-deps: a folder, a .wit file, a .wat and a .wasm package.
	corpus := filepath.Join(dir, "kinds")
	files := map[string]string{
		"a.wit":           "package a:a;\n\nworld a {\n  import b:b/b;\n  import c:c/c;\n  import d:d/d;\n  import e:e/e;\n}\n",
		"deps/b/root.wit": "package b:b;\n\ninterface b {}\n",
		"deps/c.wit":      "package c:c;\n\ninterface c {}\n",
		"deps/d.wat":      "(component\n  (type $d (component\n    (export \"d:d/d\" (instance))\n  ))\n  (export \"d\" (type $d))\n)\n",
		// wasm-tools' encoding of `package e:e; interface e {}`.
		"deps/e.wasm": "\x00asm\x0d\x00\x01\x00\x07\x10\x01\x41\x02\x01\x42\x00\x04\x01\x05e:e/e\x05\x00\x0b\x07\x01\x00\x01e\x03\x00\x00",
	}
	for name, content := range files {
		p := filepath.Join(corpus, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root := testutil.RepoRoot(t)
	hello := filepath.Join(root, "build", "components", "hello.wasm")
	tests := []struct {
		name   string
		args   []string
		code   int
		out    string
		errOut string
	}{
		{"ok", []string{good}, 0, "f: func(x: u32) -> string;", ""},
		{"error with position", []string{bad}, 1, "", "bad.wit:3:22: type `nope` does not exist"},
		{"usage", nil, 2, "", "wit takes exactly one FILE_OR_DIR"},
		{"missing file", []string{filepath.Join(dir, "none.wit")}, 1, "", "no such file"},
		{"binary and text deps", []string{corpus}, 0, "package d:d {\n\n  interface d {", ""},
		{"binary package", []string{filepath.Join(corpus, "deps", "e.wasm")}, 0, "package e:e;\n\ninterface e {", ""},
		{"text package", []string{filepath.Join(corpus, "deps", "d.wat")}, 0, "package d:d;\n\ninterface d {", ""},
		{"component", []string{hello}, 1, "", "a component, not a WIT package"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := e.bare(append([]string{"wit"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
				t.Fatalf("code %d out %q err %q", code, out, errOut)
			}
		})
	}
	if _, _, errOut := e.bare("wit", hello); !strings.Contains(errOut, "'aios-host inspect "+hello+"' prints a component's WIT") {
		t.Errorf("no hint for a component: %q", errOut)
	}
}
