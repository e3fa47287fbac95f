package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSDKImportOfMissingExportNamed: an import of a name 'aios-sdk' does
// not export (registerTol, a slip; AgentContext, a type of aios-sdk.d.ts,
// in a .js file) failed with esbuild's words 'No matching export in
// "aios-sdk:aios-sdk" for import "registerTol"': the plugin's namespace
// shown as if it were a file, nothing said of what the module exports.
// The error says 'aios-sdk' has no export of that name, the closest one
// it has, or that the name is a type, and lists the exports.
func TestSDKImportOfMissingExportNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ file, src, want string }{
		{"slip.js", "import { registerTol } from 'aios-sdk';\nregisterTol({ name: 'x' }, () => 1);\n", "did you mean registerTool?"},
		{"typ.js", "import { AgentContext } from 'aios-sdk';\naios.registerTool({ name: 'x' }, () => 1);\n", "a type"},
	} {
		path := writeSource(t, c.file, c.src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil {
			t.Fatalf("%s loaded, want an error", c.file)
		}
		msg := err.Error()
		if strings.Contains(msg, "aios-sdk:aios-sdk") {
			t.Errorf("%s: error %q shows the bundler's namespace", c.file, msg)
		}
		for _, want := range []string{c.file + ":1:10", "'aios-sdk' has no export", c.want, "registerTool, provider"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q: want it to say %s", c.file, msg, want)
			}
		}
	}
}
