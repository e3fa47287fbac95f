package trust

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCardRootFromInsideAiosFolder: a card in a package's aios/ folder named
// from inside that folder (cd PKG/aios; aios-host sign adapter.json, or
// ./adapter.json) was taken for a card of its own folder, since the folder
// of "adapter.json" is "." and not named aios: sign failed "pinning
// artifact: open tool.js: no such file or directory", and verify called a
// valid card invalid, its artifact looked for beside the card. The folder
// is judged by its absolute path, so the root is the package, "..".
func TestCardRootFromInsideAiosFolder(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"pkg/tool.wasm", "pkg/aios/adapter.json", "aios/tool.js", "aios/adapter.json"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(filepath.Join(dir, "pkg", "aios"))
	for _, card := range []string{"adapter.json", "./adapter.json"} {
		for _, art := range []string{"tool.wasm", ""} {
			root, rel := CardRoot(card, art)
			if root != ".." || rel != "aios/adapter.json" {
				t.Errorf("in pkg/aios: CardRoot(%q, %q) = %q, %q; want \"..\", \"aios/adapter.json\"", card, art, root, rel)
			}
		}
	}
	// A provider folder named aios, its artifact beside the card, stays
	// its own root.
	t.Chdir(filepath.Join(dir, "aios"))
	if root, rel := CardRoot("adapter.json", "tool.js"); root != "." || rel != "adapter.json" {
		t.Errorf("in a provider folder named aios: CardRoot = %q, %q; want \".\", \"adapter.json\"", root, rel)
	}
	// Elsewhere nothing changes.
	t.Chdir(filepath.Join(dir, "pkg"))
	if root, rel := CardRoot("aios/adapter.json", "tool.wasm"); root != "." || rel != "aios/adapter.json" {
		t.Errorf("in pkg: CardRoot(aios/adapter.json) = %q, %q; want \".\", \"aios/adapter.json\"", root, rel)
	}
}
