package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProcessParamsOverFrameIsTooLarge: a call whose params do not fit
// in a frame to the worker process (limits.max_params_bytes may be set
// above its 65 MiB) is refused with TooLarge naming their size and the
// frame limit, and the worker serves on. It was ProviderCrashed ("cannot
// send the call to the JS worker process"), after waiting a second for a
// worker that had not died.
func TestProcessParamsOverFrameIsTooLarge(t *testing.T) {
	p := loadIsolated(t, Options{}, `aios.registerTool({name: 'echo', description: 'echo'}, (p) => p.s.length);`)
	pid := p.PID()
	big := map[string]any{"s": strings.Repeat("x", maxWorkerFrame)}
	_, err := callIsolated(t, p, newFakeEnv(), "echo", big, 30*time.Second)
	te := wantCode(t, err, abi.TooLarge)
	for _, want := range []string{"echo", "params", "frame limit"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("the error does not say %q: %s", want, te.Message)
		}
	}
	v, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{"s": "abc"}, 30*time.Second)
	if err != nil || v != int64(3) {
		t.Fatalf("the next call: %v, %v", v, err)
	}
	if p.PID() != pid {
		t.Fatalf("the worker was replaced (pid %d, then %d): refusing the params is no crash", pid, p.PID())
	}
}
