package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestToolNameCheckedWhereDeclared: an invalid tool name is refused by the
// SDK at the line that declares the tool, with the host's rule; it was
// refused by the registry after the load, naming the file alone. The SDK's
// pattern is the host's (abi.ToolNamePattern).
func TestToolNameCheckedWhereDeclared(t *testing.T) {
	if !strings.Contains(preludeSource, "/"+abi.ToolNamePattern+"/") {
		t.Fatalf("prelude.js does not check tool names with abi.ToolNamePattern %s", abi.ToolNamePattern)
	}
	rt := newRuntime(t, Options{LoadTimeout: 5 * time.Second})
	for _, tc := range []struct{ file, src, at string }{
		{"space.js", "// a tool\n\naios.registerTool({ name: 'Word Count' }, (p) => 1);\n", "space.js:3"},
		{"dash.ts", "import { Agent, tool } from 'aios-sdk';\n@Agent({ id: 'org.example.dash' })\nclass D {\n  @tool({ name: '-lead' })\n  async t(p: any) { return 1; }\n}\n", "dash.ts:"},
	} {
		path := writeSource(t, tc.file, tc.src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil {
			t.Fatalf("%s loaded, want an error", tc.file)
		}
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if !strings.Contains(msg, "invalid tool name") || !strings.Contains(msg, "starting with a letter or digit") || !strings.Contains(msg, "(at "+tc.at) {
			t.Errorf("%s: %q; want the rule and the declaring line (at %s…)", tc.file, msg, tc.at)
		}
	}
	// Names the rule allows still load.
	path := writeSource(t, "ok.js", "aios.registerTool({ name: 'Word.Count_2-x' }, (p) => 1);\n")
	if _, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path)); err != nil {
		t.Fatalf("a valid name: %v", err)
	}
}
