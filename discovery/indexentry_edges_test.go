package discovery

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/js"
)

// TestIndexEntryWithModulesLoads: docs/js.md (and the JS runtime's own
// error for a top-level file importing a module) says to put a provider
// and its modules in a folder of their own, plugins/NAME/index.ts, and
// `aios-host inspect plugins/NAME` loads such a folder from its index.ts;
// but discovery took index.ts and its util.ts beside it for "several
// artifacts (index.ts, util.ts) and no card naming one", so the layout the
// host advises never served. Now a folder's index.ts (else index.js) is its
// artifact when no card names one and there is no tool.<ext>, as the
// runtime picks its entry.
func TestIndexEntryWithModulesLoads(t *testing.T) {
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	writeFile(t, filepath.Join(plugins, "words", "index.ts"), `import { word } from './util';
aios.provider({ id: 'org.example.words', name: 'Words' });
aios.registerTool({ name: 'word', description: 'a word' }, async () => word);
`)
	writeFile(t, filepath.Join(plugins, "words", "util.ts"), "export const word: string = 'one';\n")
	writeFile(t, filepath.Join(plugins, "js", "index.js"), `import { n } from './num.js';
aios.provider({ id: 'org.example.num', name: 'Num' });
aios.registerTool({ name: 'num', description: 'a number' }, async () => n);
`)
	writeFile(t, filepath.Join(plugins, "js", "num.js"), "export const n = 7;\n")
	// index.mjs and index.mts, extensions a provider file may have, were
	// no entry: the folder was "several artifacts and no card".
	writeFile(t, filepath.Join(plugins, "mjs", "index.mjs"), `import { m } from './m.mjs';
aios.provider({ id: 'org.example.mjs', name: 'Mjs' });
aios.registerTool({ name: 'mjs', description: 'a module' }, async () => m);
`)
	writeFile(t, filepath.Join(plugins, "mjs", "m.mjs"), "export const m = 'mjs';\n")
	writeFile(t, filepath.Join(plugins, "mts", "index.mts"), `import { m } from './m.mts';
aios.provider({ id: 'org.example.mts', name: 'Mts' });
aios.registerTool({ name: 'mts', description: 'a module' }, async () => m);
`)
	writeFile(t, filepath.Join(plugins, "mts", "m.mts"), "export const m: string = 'mts';\n")
	cfg, err := config.Parse([]byte("plugins: ["+plugins+"]\ndata: "+filepath.Join(dir, "data")+"\naudit: {disabled: true}\n"+
		"discovery:\n  dirs: []\n  desktop_dirs: []\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rt := js.New(js.Options{})
	defer rt.Close()
	h, err := host.New(host.Options{Config: cfg, Loaders: rt.Loaders()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	d, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if errs := d.Errors(); len(errs) != 0 {
		t.Fatalf("discovery errors: %v", errs)
	}
	for tool, want := range map[string]any{"word": "one", "num": int64(7), "mjs": "mjs", "mts": "mts"} {
		v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: tool, Params: map[string]any{}})
		if err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
		if v != want {
			t.Errorf("call %s = %#v, want %#v", tool, v, want)
		}
	}
	// The module is the unit's code: an edit of it reloads.
	if err := os.WriteFile(filepath.Join(plugins, "words", "util.ts"), []byte("export const word: string = 'two';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "word", Params: map[string]any{}}); err != nil || v != "two" {
		t.Fatalf("after util.ts changed: %#v, %v; want \"two\"", v, err)
	}
}
