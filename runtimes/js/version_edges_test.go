package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestVersionCheckedWhereDeclared: a provider version that is not strict
// SemVer (aios.provider({version: '2.1'}), which the provider's tools
// declaring none take) failed the load with the registry's `provider
// org.test.pv, tool t: version "2.1" is not a strict SemVer version`,
// blaming a tool that declared no version and naming no line; a tool's
// own version ('v1.2.3') named the file alone. The Python SDK refuses both
// at the line that declares them. Both are now refused by the SDK there,
// naming what declared the version.
func TestVersionCheckedWhereDeclared(t *testing.T) {
	rt := newRuntime(t, Options{LoadTimeout: 5 * time.Second})
	for _, tc := range []struct{ file, src, want, at string }{
		{"pv.js", "aios.provider({ id: 'org.test.pv', version: '2.1' });\naios.registerTool({ name: 't', parameters: {} }, () => 1);\n",
			`aios.provider(...): version "2.1" is not a strict SemVer version`, "pv.js:1"},
		{"tv.js", "aios.registerTool({ name: 'ok', parameters: {} }, () => 1);\naios.registerTool({ name: 't', version: 'v1.2.3', parameters: {} }, () => 1);\n",
			`t: version "v1.2.3" is not a strict SemVer version`, "tv.js:2"},
		{"av.ts", "import { Agent, tool } from 'aios-sdk';\n@Agent({ id: 'org.example.av', version: '01.0.0' })\nclass A {\n  @tool({ name: 'x' })\n  async x(p: any) { return 1; }\n}\n",
			`version "01.0.0" is not a strict SemVer version`, "av.ts:"},
		// An empty or malformed pre-release or build passed the SDK, to be
		// refused by the registry naming the file alone.
		{"pre.js", "aios.registerTool({ name: 'ok', parameters: {} }, () => 1);\naios.registerTool({ name: 't', version: '1.0.0-', parameters: {} }, () => 1);\n",
			`t: version "1.0.0-" is not a strict SemVer version`, "pre.js:2"},
		{"pre0.js", "aios.provider({ id: 'org.test.pre0', version: '1.0.0-01' });\naios.registerTool({ name: 't', parameters: {} }, () => 1);\n",
			`aios.provider(...): version "1.0.0-01" is not a strict SemVer version`, "pre0.js:1"},
		{"bld.js", "aios.registerTool({ name: 't', version: '1.0.0+', parameters: {} }, () => 1);\n",
			`t: version "1.0.0+" is not a strict SemVer version`, "bld.js:1"},
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
		if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "(at "+tc.at) || strings.Contains(msg, "tool t: version \"2.1\"") {
			t.Errorf("%s: %q; want %q and the declaring line (at %s…)", tc.file, msg, tc.want, tc.at)
		}
	}
	// Strict SemVer versions, pre-release and build metadata included, load.
	path := writeSource(t, "ok.js", "aios.provider({ id: 'org.test.ok', version: '1.2.3-rc.1+b.5' });\naios.registerTool({ name: 'a', version: '0.0.1', parameters: {} }, () => 1);\naios.registerTool({ name: 'b', parameters: {} }, () => 1);\n")
	if _, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path)); err != nil {
		t.Fatalf("valid versions: %v", err)
	}
}
