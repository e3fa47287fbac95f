package wit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDepsSymlinkedFolder: a dependency kept elsewhere and linked into
// deps/ (deps/y -> ../../shared/y), which wasm-tools reads as the folder
// it points at, was skipped as neither a folder nor a .wit file, so the
// package using it was refused with "package 'x:y' not found".
func TestDepsSymlinkedFolder(t *testing.T) {
	tmp := t.TempDir()
	shared := filepath.Join(tmp, "shared", "y")
	root := filepath.Join(tmp, "root")
	for _, d := range []string{shared, filepath.Join(root, "deps")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(shared, "y.wit"), "package x:y;\ninterface i { type t = u8; }\n")
	write(filepath.Join(root, "a.wit"), "package a:b;\ninterface j { use x:y/i.{t}; f: func(x: t); }\n")
	if err := os.Symlink(filepath.Join("..", "..", "shared", "y"), filepath.Join(root, "deps", "y")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	res, err := ParseDir(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Package("x:y"); p == nil || p.Interface("i") == nil {
		t.Errorf("x:y not read from the linked folder: %v", res.Packages)
	}
	// A link that leads nowhere is left alone, as a file of another kind is.
	if err := os.Symlink("nowhere", filepath.Join(root, "deps", "gone")); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseDir(root, Options{}); err != nil {
		t.Errorf("a dangling link in deps/: %v", err)
	}
}
