package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyPluginFileSaidEmpty: an empty .js, .ts or .py file (seen for a
// moment while an editor rewrites it) failed "the provider registers no
// tools", an empty .wasm "not a WebAssembly binary" (found by p123): the
// load says the file is empty, naming it, before any loader reads it.
func TestEmptyPluginFileSaidEmpty(t *testing.T) {
	if err := checkPluginFile(filepath.Join(t.TempDir(), "absent.js"), 100); err != nil {
		t.Fatalf("an absent path is left to the loader: %v", err)
	}
	for _, name := range []string{"tool.js", "tool.ts", "tool.py", "tool.wasm"} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		err := checkPluginFile(path, 100)
		if err == nil || !strings.Contains(err.Error(), "the file is empty") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want 'the file is empty' naming it", name, err)
		}
	}
}
