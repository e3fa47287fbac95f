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

// TestFolderProvider loads a provider packaged as a folder (index.ts with a
// relative import), with the id given by the Source (an Adapter Card).
func TestFolderProvider(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"index.ts": "import { shout } from './lib/shout';\nimport { registerTool } from 'aios-sdk';\n" +
			"registerTool({ name: 'shout', parameters: { s: { type: 'string' } } }, (p: { s: string }) => shout(p.s));\n",
		"lib/shout.ts": "export function shout(s: string): string {\n  if (!s) throw new Error('empty');\n  return s.toUpperCase() + '!';\n}\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt := newRuntime(t, Options{})
	prov, err := rt.Loaders()[1].Load(context.Background(), abi.Source{Path: dir, ProviderID: "org.example.shout"})
	if err != nil {
		t.Fatal(err)
	}
	defer prov.Close()
	p := prov.(*Provider)
	if id := p.Describe().Provider.ID; id != "org.example.shout" {
		t.Errorf("id = %q", id)
	}
	res, err := call(t, p, newFakeEnv(), "shout", map[string]any{"s": "hi"}, 10*time.Second)
	if err != nil || res != "HI!" {
		t.Fatalf("shout = %v, %v", res, err)
	}
	// The stack points into the imported file, at its original line.
	_, err = call(t, p, newFakeEnv(), "shout", map[string]any{"s": ""}, 10*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if !strings.Contains(te.Message, "Error: empty (at lib/shout.ts:2:") {
		t.Errorf("message = %q", te.Message)
	}
	t.Log(te.Message, "\n", te.Data)
}
