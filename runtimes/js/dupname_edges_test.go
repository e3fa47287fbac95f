package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestDuplicateToolNameSaysWhereFirst: a tool name declared twice in a
// file failed the load at the second declaration's line alone, leaving
// the author to search the file (and its imported modules) for the first.
// Both lines are named now, also for @tool methods.
func TestDuplicateToolNameSaysWhereFirst(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ file, src, first, second string }{
		{"dd.js", "aios.registerTool({ name: 'd' }, () => 1);\n\naios.registerTool({ name: 'd' }, () => 2);\n", "dd.js:1:", "(at dd.js:3:"},
		{"dm.ts", "import { Agent, tool } from 'aios-sdk';\naios.registerTool({ name: 'm' }, () => 1);\n@Agent()\nclass C {\n  @tool() m() { return 2; }\n}\n", "dm.ts:2:", ""},
	} {
		path := writeSource(t, c.file, c.src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil {
			t.Fatalf("%s loaded, want the duplicate refused", c.file)
		}
		msg, _, _ := strings.Cut(err.Error(), "\n")
		if !strings.Contains(msg, "the first is declared at "+c.first) || !strings.Contains(msg, c.second) {
			t.Errorf("%s: %q, want the first declaration's line %s and the second's", c.file, msg, c.first)
		}
	}
}
