package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/js"
)

// TestSeveralToolFilesNamed: a provider folder of tool.ts with the
// tool.js tsc writes beside it (or a tool.py beside a tool.js) loaded the
// first by name, tool.js, without a word: the edits of tool.ts reloaded
// the unit (its code) and served the stale tool.js, where
// docs/discovery.md makes several artifacts without a choice an error
// naming them. Two tool.<ext> are no choice: the folder is refused
// naming both, and loads once one goes.
func TestSeveralToolFilesNamed(t *testing.T) {
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	pkg := filepath.Join(plugins, "pkg")
	writeFile(t, filepath.Join(pkg, "tool.ts"), "aios.provider({ id: 'org.example.pkg', name: 'Pkg' });\n"+
		"aios.registerTool({ name: 'which', description: 'which file' }, async (): Promise<string> => 'ts');\n")
	writeFile(t, filepath.Join(pkg, "tool.js"), "aios.provider({ id: 'org.example.pkg', name: 'Pkg' });\n"+
		"aios.registerTool({ name: 'which', description: 'which file' }, async () => 'stale js');\n")
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
	if e := d.Errors()[pkg]; !strings.Contains(e, "several artifacts (tool.js, tool.ts)") {
		t.Fatalf("pkg's error = %q, want it to name tool.js and tool.ts", e)
	}
	if h.Registry().Provider("org.example.pkg") != nil {
		t.Fatal("a folder of tool.js and tool.ts served one of them")
	}
	if err := os.Remove(filepath.Join(pkg, "tool.js")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "which", Params: map[string]any{}}); err != nil || v != "ts" {
		t.Fatalf("after tool.js went: %#v, %v; want \"ts\"", v, err)
	}
}

// TestCardBesideSeveralArtifactsNamesThem: a card without artifact.path in
// a folder of several artifacts (tool.js and tool.ts, or a.js and b.js)
// was refused "the card names neither an artifact (put one beside it) nor
// endpoints.rpc/http", though they were beside it. The error names them
// and artifact.path.
func TestCardBesideSeveralArtifactsNamesThem(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFile(t, filepath.Join(dir, "p", "adapter.json"), `{"adapter": {"id": "org.test.p", "name": "P", "version": "1.0.0", "protocol_version": "0.3.0"}, "capabilities": {}, "skills": []}`)
		writeFake(t, filepath.Join(dir, "p", "a.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"a"}})
		writeFake(t, filepath.Join(dir, "p", "b.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"b"}})
	})
	e := env.d.Errors()[filepath.Join(env.dir, "p")]
	if !strings.Contains(e, "several artifacts (a.fake, b.fake)") || !strings.Contains(e, "artifact.path") || strings.Contains(e, "put one beside it") {
		t.Fatalf("p's error = %q, want it to name a.fake, b.fake and artifact.path", e)
	}
}
