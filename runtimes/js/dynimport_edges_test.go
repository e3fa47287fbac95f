package js

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestDynamicImportOfComputedName: import(m) of a name known only when it
// runs cannot be bundled, and esbuild left it as it was in the bundle,
// which goja cannot parse: the whole file failed to load with "goja cannot
// compile the bundle: SyntaxError: f.js.bundle.js: Line 4:21 Unexpected
// reserved word", naming a file that exists nowhere and no line of the
// provider's. The file loads now (its other tools serve), and such an
// import fails when it runs, naming the name and the provider's line; an
// import() of a literal path is bundled as before.
func TestDynamicImportOfComputedName(t *testing.T) {
	rt := newRuntime(t, Options{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.js"), []byte("export const v = 42;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.js"), []byte(`
aios.registerTool({ name: 'lit', parameters: {} }, async () => (await import('./lib.js')).v);
aios.registerTool({ name: 'computed', parameters: { m: { type: 'string' } } }, async ({ m }) => {
  const x = await import(m);
  return Object.keys(x);
});
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := rt.load(context.Background(), abi.Source{Path: dir, Unit: dir}, abi.RuntimeJS)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	jp := p.(*Provider)
	got, err := call(t, jp, newFakeEnv(), "lit", map[string]any{}, 5*time.Second)
	if err != nil || got != int64(42) {
		t.Fatalf("lit: %v, %v; want 42", got, err)
	}
	_, err = call(t, jp, newFakeEnv(), "computed", map[string]any{"m": "./lib.js"}, 5*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if !strings.Contains(te.Message, `"./lib.js" is not supported`) || !strings.Contains(te.Message, "(at index.js:4:") {
		t.Fatalf("computed: %q, want the name refused at index.js:4", te.Message)
	}
}
