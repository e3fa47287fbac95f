package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestToolDefinitionErrorNamesLine: a tool definition member of the wrong
// type (version: 2, tags: 'a', deprecated: 'yes') failed the load with
// "tool v: bad definition: json: member "version" is a JSON number …",
// naming the file but not the line, where the SDK's own checks (a tool
// name, a capability) name the line that declares the tool (found by
// p139). It names that line too.
func TestToolDefinitionErrorNamesLine(t *testing.T) {
	rt := newRuntime(t, Options{})
	for name, src := range map[string]string{
		"version":    "aios.registerTool({ name: 'ok', parameters: {} }, () => 1);\naios.registerTool({ name: 'v', version: 2, parameters: {} }, () => 1);\n",
		"tags":       "aios.registerTool({ name: 'ok', parameters: {} }, () => 1);\naios.registerTool({ name: 'v', tags: 'a', parameters: {} }, () => 1);\n",
		"deprecated": "aios.registerTool({ name: 'ok', parameters: {} }, () => 1);\naios.registerTool({ name: 'v', deprecated: 'yes', parameters: {} }, () => 1);\n",
	} {
		path := writeSource(t, "def.js", src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err == nil {
			t.Errorf("%s: loaded, want an error", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, `member "`+name+`"`) || !strings.Contains(msg, "(at def.js:2:") {
			t.Errorf("%s: %q, want the member and the line declaring the tool (at def.js:2:…)", name, msg)
		}
	}
}
