package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorStackLeavesOutHostFrames: the stack of an error a host check
// threw in the provider's code (a size limit of limits.js, an SDK call's
// TypeError) held the host's own frames: "at
// github.com/aios-host/aios-host/runtimes/js.(*limits).checkCtor-fm
// (native)" and "at F (aios-limits.js:25:45)", a Go function and a file
// the author has never seen, before the provider's line. They are left
// out, as the bundle's frames are; the provider's frames stay.
func TestErrorStackLeavesOutHostFrames(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "lim.js", `
aios.registerTool({ name: 'arr', parameters: {} }, () => new Array(2 ** 31).length);
aios.registerTool({ name: 'sdk', parameters: {} }, (p, ctx) => ctx.spaces.write('s', 5));
`)
	for _, tool := range []string{"arr", "sdk"} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 5*time.Second)
		if err == nil {
			t.Fatalf("%s: success, want an error", tool)
		}
		te := err.(*abi.ToolError)
		st, _ := te.Data.(map[string]any)["stack"].(string)
		if strings.Contains(st, "aios-host/runtimes/js") || strings.Contains(st, "aios-limits.js") || strings.Contains(st, "aios-sdk-prelude.js") || !strings.Contains(st, "lim.js:") {
			t.Errorf("%s: data.stack %q: want the provider's frames and none of the host's", tool, st)
		}
	}
}
