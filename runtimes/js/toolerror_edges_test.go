package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestToolErrorWithoutCodeSaysSo: new aios.ToolError(aios.ToolError.Notfound,
// 'gone') — a constant misspelt, so the code is undefined — or
// new aios.ToolError(null, …) failed "ProviderError: ToolError: gone (at
// …)", nothing saying the code was missing, where an unknown code is
// named and the ABI's listed (TestToolErrorUnknownCode). The message now
// says the ToolError has no code and lists the codes.
func TestToolErrorWithoutCodeSaysSo(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "nocode.js", `aios.provider({ id: 'org.test.nocode' });
aios.registerTool({ name: 'misspelt', parameters: {} }, () => { throw new aios.ToolError(aios.ToolError.Notfound, 'gone'); });
aios.registerTool({ name: 'null', parameters: {} }, async () => { throw new aios.ToolError(null, 'gone'); });
`)
	for _, tool := range []string{"misspelt", "null"} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 30*time.Second)
		te := wantCode(t, err, abi.ProviderError)
		if !strings.Contains(te.Message, "ToolError: gone (at nocode.js:") || !strings.Contains(te.Message, "the ToolError has no error code") || !strings.Contains(te.Message, "NotFound") {
			t.Errorf("%s: %q, want the message, the line, that the code is missing and the codes", tool, te.Message)
		}
	}
}
