package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSyntaxErrorColumnCountsCharacters: a syntax error's column is
// esbuild's, which counts bytes: on a line holding "é" or "日本語" or an
// emoji before the error it was one, two or three more for each than an
// editor, tsc, or this runtime's own errors at run time show (they count
// UTF-16 code units, as JavaScript does): "日本語" put the caret six
// columns right of the ";". It is counted as they count.
func TestSyntaxErrorColumnCountsCharacters(t *testing.T) {
	rt := newRuntime(t, Options{})
	for name, c := range map[string]struct{ src, want string }{
		"ascii.ts":  {"const s = 'hello'; let x: number = ;\n", "ascii.ts:1:36: Unexpected \";\""},
		"accent.ts": {"const s = 'héllo'; let x: number = ;\n", "accent.ts:1:36: Unexpected \";\""},
		"cjk.js":    {"const s = '日本語'; let x = ;\n", "cjk.js:1:26: Unexpected \";\""},
		"emoji.ts":  {"const s = '😀😀'; let x: number = ;\n", "emoji.ts:1:35: Unexpected \";\""},
	} {
		path := writeSource(t, name, c.src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil || !strings.Contains(err.Error(), "/"+c.want) {
			t.Errorf("%s: got %v; want %q", name, err, c.want)
		}
	}
}
