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

// TestDecoratorPragmaInModuleNotIgnored: in a provider folder, a module
// (lib/k.ts) with "// @aios-decorators experimental" imported by an
// index.ts without the line was compiled with standard decorators: the
// line was read from the entry file only (esbuild compiles the whole
// bundle with one setting), so the module's own experimental decorators
// were called as (method, context), without a word. A module's line that
// the entry's does not match now fails the load at its file and line,
// saying the entry file decides for all the provider's files; one that
// matches loads.
func TestDecoratorPragmaInModuleNotIgnored(t *testing.T) {
	module := "// @aios-decorators experimental\n" +
		"let seen = '';\n" +
		"function logged(target: any, key: any, desc?: any): any { seen = typeof key; }\n" +
		"export class K { @logged m() { return seen; } }\n"
	index := "import { K } from './lib/k';\n" +
		"aios.provider({ id: 'org.test.mp' });\n" +
		"aios.registerTool({ name: 't', parameters: {} }, () => new K().m());\n"
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ name, entryLine, want string }{
		{"none", "", "module's line is not the entry's"},
		{"standard", "// @aios-decorators standard\n", "module's line is not the entry's"},
		{"experimental", "// @aios-decorators experimental\n", "string"},
	} {
		dir := filepath.Join(t.TempDir(), "prov")
		if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lib", "k.ts"), []byte(module), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index.ts"), []byte(c.entryLine+index), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := rt.load(context.Background(), abi.Source{Path: dir}, abi.RuntimeTS)
		if c.want != "string" {
			if err == nil {
				_ = p.Close()
				t.Errorf("entry line %s: loaded, want an error naming lib/k.ts:1", c.name)
				continue
			}
			msg := err.Error()
			for _, w := range []string{filepath.Join(dir, "lib", "k.ts") + ":1:", "// @aios-decorators experimental", "index.ts", "decides for all"} {
				if !strings.Contains(msg, w) {
					t.Errorf("entry line %s: %q, want it to say %q", c.name, msg, w)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("entry line %s: %v", c.name, err)
		}
		got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, newFakeEnv())
		_ = p.Close()
		if err != nil || got != "string" {
			t.Errorf("entry line %s: %v %v, want the module's decorator called with experimental decorators (a string key)", c.name, got, err)
		}
	}
}
