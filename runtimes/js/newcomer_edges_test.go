package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestDecoratorErrorNamesSource: a misspelt @tool option in a TS file
// fails the load "(at FILE.ts:LINE:COL)", the newcomer's file, not the
// esbuild helper's line in the bundle ("(at typo.ts.bundle.js:20:104)",
// a file that exists nowhere), as docs/js.md promises.
func TestDecoratorErrorNamesSource(t *testing.T) {
	rt := newRuntime(t, Options{LoadTimeout: 5 * time.Second})
	for _, mode := range []string{"standard", "experimental"} {
		t.Run(mode, func(t *testing.T) {
			src := "// @aios-decorators " + mode + "\nimport { Agent, tool } from 'aios-sdk';\n@Agent({ id: 'org.example.typo' })\nclass T {\n  @tool({ name: 'typo-tool', paramaters: { x: { type: 'string' } } })\n  async t(p: any) { return { ok: true }; }\n}\n"
			path := writeSource(t, "typo.ts", src)
			_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			msg := err.Error()
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i] // the message; the stack follows
			}
			if !strings.Contains(msg, "(did you mean parameters?)") || !strings.Contains(msg, "(at typo.ts:") {
				t.Fatalf("error %q: want the misspelling and the source location (at typo.ts:…)", msg)
			}
			if strings.Contains(msg, ".bundle.js") {
				t.Fatalf("error %q names the bundle, not the source file", msg)
			}
		})
	}
}
