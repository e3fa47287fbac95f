package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLongErrorFitsHostBound: the runtime cut a thrown error's message at
// 64 KiB and put its note "… (N more bytes)" after it, above the 64 KiB
// the host keeps of a provider's message (found by p140): the host cut it
// again, the note lost. The runtime's cut leaves room for the note.
func TestLongErrorFitsHostBound(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "cut.js", `import { registerTool } from "aios-sdk";
registerTool({ name: "long" }, () => {
  throw new Error("y".repeat(1000000));
});
registerTool({ name: "wide" }, () => {
  throw new Error("\u00e9".repeat(100000));
});
`)
	for _, tool := range []string{"long", "wide"} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 20*time.Second)
		te := wantCode(t, err, abi.ProviderError)
		if te == nil {
			continue
		}
		if len(te.Message) > 64<<10 || !strings.Contains(te.Message, "more bytes)") || strings.Contains(te.Message, "the provider's message of") {
			end := te.Message[max(0, len(te.Message)-160):]
			t.Errorf("%s: a message of %d bytes ending %q; want at most 64 KiB with the runtime's note, not cut again", tool, len(te.Message), end)
		}
	}
}
