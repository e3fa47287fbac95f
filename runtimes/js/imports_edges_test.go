package js

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCSSImportNamed: a provider folder whose code imports a stylesheet
// (import './style.css', left from a web project) failed to load with
// "index.js: esbuild produced 2 output files, want 1", naming neither the
// import nor what to do. The import is now refused at its line, naming
// it; JSON and text imports still load.
func TestCSSImportNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	mk := func(files map[string]string) string {
		dir := filepath.Join(t.TempDir(), "prov")
		for name, src := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, css := range []string{"style.css", "Style.CSS"} {
		dir := mk(map[string]string{
			"index.js": "import { x } from './lib/x.js';\naios.registerTool({ name: 'a' }, () => x);\n",
			"lib/x.js": "\nimport '../" + css + "';\nexport const x = 1;\n",
			css:        "a { color: red }\n",
		})
		_, err := rt.Loaders()[1].Load(context.Background(), abi.Source{Path: dir})
		if err == nil || !strings.Contains(err.Error(), filepath.Join("lib", "x.js")+`:2:8: cannot import "../`+css+`": a JS tool has no use for CSS`) {
			t.Errorf("%s: %v; want the import named at its line", css, err)
		}
	}
	dir := mk(map[string]string{
		"index.ts":  "import d from './data.json';\nimport t from './t.txt';\naios.registerTool({ name: 'a' }, () => ({ d, t }));\n",
		"data.json": `{"k": [1, 2]}`,
		"t.txt":     "hello",
	})
	p, err := rt.Loaders()[1].Load(context.Background(), abi.Source{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "a", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, newFakeEnv())
	want := map[string]any{"d": map[string]any{"k": []any{int64(1), int64(2)}}, "t": "hello"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("json and text: %#v %v, want %#v", got, err, want)
	}
}
