package wit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const builtinSDK = `package aios:sdk@0.1.0;
interface spaces {
  read: func(object-id: string) -> result<list<u8>, string>;
}
`

// Options.Builtin: a package the program brings (aios-host's aios:sdk)
// is resolved when a package refers to it and does not define it, by full
// name or, without a version, as the only built-in version; a package
// that does not refer to it is resolved without it; a definition in
// deps/ wins; another version is not found, and the error names the
// built-in one.
func TestBuiltinPackage(t *testing.T) {
	opts := Options{Builtin: map[string]string{"aios:sdk@0.1.0": builtinSDK}}
	names := func(r *Resolved) string {
		var out []string
		for _, p := range r.Packages {
			out = append(out, p.Name.String())
		}
		return strings.Join(out, " ")
	}

	for _, imp := range []string{"aios:sdk/spaces@0.1.0", "aios:sdk/spaces"} {
		r, err := ParseSource("w.wit", "package my:tools;\nworld w {\n  import "+imp+";\n}\n", opts)
		if err != nil {
			t.Fatalf("import %s: %v", imp, err)
		}
		if got := names(r); got != "aios:sdk@0.1.0 my:tools" || r.Root.Name.String() != "my:tools" {
			t.Fatalf("import %s: packages %q, root %s", imp, got, r.Root.Name)
		}
	}

	r, err := ParseSource("p.wit", "package a:b;\ninterface i { f: func(); }\n", opts)
	if err != nil || names(r) != "a:b" {
		t.Fatalf("a package without aios:sdk: %v %v", err, r)
	}

	_, err = ParseSource("v.wit", "package my:tools;\nworld w {\n  import aios:sdk/spaces@0.2.0;\n}\n", opts)
	if err == nil || !strings.Contains(err.Error(), "package 'aios:sdk@0.2.0' not found") || !strings.Contains(err.Error(), "aios:sdk@0.1.0 (built in)") {
		t.Fatalf("import of another version: %v", err)
	}

	// deps/ defines aios:sdk@0.1.0 itself (with write only): its own is used.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("w.wit", "package my:tools;\nworld w {\n  import aios:sdk/spaces@0.1.0;\n}\n")
	write("deps/sdk.wit", "package aios:sdk@0.1.0;\ninterface spaces {\n  write: func(space: string, data: list<u8>) -> result<string, string>;\n}\n")
	r, err = ParseDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := Print(r)
	if !strings.Contains(out, "write: func(") || strings.Contains(out, "read: func(") {
		t.Fatalf("deps/ aios:sdk did not win over the built-in one:\n%s", out)
	}

	// Without Builtin, as before: not found.
	if _, err := ParseSource("w.wit", "package my:tools;\nworld w {\n  import aios:sdk/spaces@0.1.0;\n}\n", Options{}); err == nil {
		t.Fatal("resolved aios:sdk without Builtin")
	}
}
