package trust

import (
	"os"
	"path/filepath"
	"testing"
)

// A card in a package's aios/ folder is relative to the package (seed
// §2.1); any other card to its own folder.
func TestCardRoot(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	for _, f := range []string{"pkg/tool.wasm", "pkg/aios/adapter.json", "aios/tool.js", "aios/adapter.json"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ card, artifact, root, rel string }{
		{filepath.Join(pkg, "adapter.json"), "tool.wasm", pkg, "adapter.json"},
		{filepath.Join(pkg, "aios", "adapter.json"), "tool.wasm", pkg, "aios/adapter.json"},
		{filepath.Join(pkg, "aios", "adapter.json"), "", pkg, "aios/adapter.json"},
		{filepath.Join(pkg, "aios", "adapter.json"), "missing.wasm", pkg, "aios/adapter.json"},
		// A provider folder named aios, its artifact beside the card.
		{filepath.Join(dir, "aios", "adapter.json"), "tool.js", filepath.Join(dir, "aios"), "adapter.json"},
	}
	for _, c := range cases {
		root, rel := CardRoot(c.card, c.artifact)
		if root != c.root || rel != c.rel {
			t.Errorf("CardRoot(%s, %q) = %q, %q; want %q, %q", c.card, c.artifact, root, rel, c.root, c.rel)
		}
	}
}
