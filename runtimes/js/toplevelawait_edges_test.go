package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTopLevelAwaitSaysWhatToDo: a provider with top-level await
// failed to load with esbuild's "Top-level await is not available in the
// configured target environment ("es2017")", a setting the author has none
// of; the error still names file:line:col and says to await in the handler.
func TestTopLevelAwaitSaysWhatToDo(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, tc := range []struct{ name, src, at string }{
		{"await.ts", "const cfg = await Promise.resolve(1);\naios.registerTool({ name: 'x' }, () => cfg);\n", "await.ts:1:13: Top-level await is not available"},
		{"forawait.js", "let n = 0;\nfor await (const x of [1]) n += x;\naios.registerTool({ name: 'x' }, () => n);\n", "forawait.js:2:5: Top-level await is not available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, tc.name, tc.src)}, runtimeOf(tc.name))
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range []string{tc.at, "top-level code runs once at load", "await in the handler"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
