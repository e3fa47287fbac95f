package repocheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// maxTracked is the largest file the repository may track. The biggest
// legitimate files are npm lock files (about 110 KB).
const maxTracked = 1 << 20

// TestNoBuildOutputsTracked fails when a tracked file is a build output: an
// executable, a WebAssembly binary, or anything over 1 MiB. Sample guests and
// the binary are built from source by make (samples, build), never committed.
func TestNoBuildOutputsTracked(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git work tree (or no git): %v", err)
	}
	dir := string(bytes.TrimSpace(root))
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	names := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
	if len(names) < 100 {
		t.Fatalf("git ls-files listed %d files; expected the whole tree", len(names))
	}
	for _, n := range names {
		name := string(n)
		path := filepath.Join(dir, name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		if fi.Size() > maxTracked {
			t.Errorf("%s is tracked and %d bytes (over %d): build it, do not commit it", name, fi.Size(), maxTracked)
			continue
		}
		if kind := buildOutput(path); kind != "" {
			t.Errorf("%s is a tracked %s: build it from source, do not commit it", name, kind)
		}
	}
}

// buildOutput names the kind of binary the file at path starts like, or "".
func buildOutput(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var magic [4]byte
	if n, _ := f.Read(magic[:]); n < 4 {
		return ""
	}
	switch {
	case bytes.Equal(magic[:], []byte("\x7fELF")):
		return "ELF executable"
	case bytes.Equal(magic[:], []byte("\x00asm")):
		return "WebAssembly binary"
	case bytes.Equal(magic[:], []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.Equal(magic[:], []byte{0xce, 0xfa, 0xed, 0xfe}):
		return "Mach-O executable"
	case bytes.Equal(magic[:2], []byte("MZ")):
		return "Windows executable"
	}
	return ""
}

func TestBuildOutputKinds(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"\x7fELF\x02\x01":     "ELF executable",
		"\x00asm\x01\x00":     "WebAssembly binary",
		"MZ\x90\x00":          "Windows executable",
		"package main\n":      "",
		"ab":                  "",
		"{\"name\": \"x\"}\n": "",
	} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := buildOutput(p); got != want {
			t.Errorf("buildOutput(%q) = %q, want %q", content, got, want)
		}
	}
}
