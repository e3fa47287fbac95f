package wit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOversizedFileRefused: a file of a WIT package larger than
// MaxFileBytes, given itself or in a folder's deps/ (as .wit or as a binary
// .wasm package), is refused naming it and the limit; it was read whole
// with os.ReadFile, so one that never ends (aios-host wit /dev/zero) grew
// until memory ran out.
func TestOversizedFileRefused(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "pkg")
	if err := os.MkdirAll(filepath.Join(root, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.wit"), []byte("package a:a;\ninterface i {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Sparse: nothing of it is written to the disk.
	big := func(path string) string {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(MaxFileBytes + 1); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, name := range []string{"big.wit", "big.wasm"} {
		p := big(filepath.Join(dir, name))
		if _, err := Parse(p, Options{}); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "more than 16777216 bytes") {
			t.Errorf("Parse(%s): %v", name, err)
		}
		os.Remove(p)
	}
	for _, name := range []string{"d.wit", "d.wasm"} {
		p := big(filepath.Join(root, "deps", name))
		if _, err := Parse(root, Options{}); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "more than 16777216 bytes") {
			t.Errorf("Parse of a folder with deps/%s: %v", name, err)
		}
		os.Remove(p)
	}
	// Within the limit, the folder still resolves.
	if _, err := Parse(root, Options{}); err != nil {
		t.Fatal(err)
	}
}
