package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestEmptyErrorMessageNamesErrorAlone: an Error thrown without a message
// (`throw new Error()`, `new TypeError()`, a cause made so) reached the
// caller as "Error:  (at f.js:3:31)", a colon before nothing and two spaces,
// where JS's own String(e) and the stack say "Error" (found by p159). The
// message is the name alone, as node prints such an error: "Error (at …)",
// "TypeError (code "E1") (at …)", "…; cause: RangeError (at …)".
func TestEmptyErrorMessageNamesErrorAlone(t *testing.T) {
	const src = `
aios.registerTool({ name: 'bare' }, () => { throw new Error(); });
aios.registerTool({ name: 'typed' }, () => { const e = new TypeError(''); e.code = 'E1'; throw e; });
aios.registerTool({ name: 'cause' }, () => { throw new Error('outer', { cause: new RangeError() }); });
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "empty.js", src)
	cases := []struct{ tool, want string }{
		{"bare", "Error (at empty.js:2:"},
		{"typed", `TypeError (code "E1") (at empty.js:3:`},
		{"cause", "Error: outer (at empty.js:4:"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := call(t, p, newFakeEnv(), tc.tool, map[string]any{}, 5*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			if !strings.HasPrefix(te.Message, tc.want) {
				t.Errorf("message %q does not begin %q", te.Message, tc.want)
			}
			if strings.Contains(te.Message, ":  ") || strings.Contains(te.Message, ": (") || strings.HasSuffix(te.Message, ": ") {
				t.Errorf("message %q has a colon before an empty message", te.Message)
			}
			if tc.tool == "cause" && !strings.Contains(te.Message, "; cause: RangeError (at empty.js:4:") {
				t.Errorf("message %q does not name the cause as RangeError alone", te.Message)
			}
		})
	}
}
