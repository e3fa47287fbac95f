package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestTimeoutNamesTheTool: a JS handler stopped at its deadline (or at
// its caller's cancel) said "deadline exceeded: the JS handler of provider
// /path/tools.js was interrupted", naming a file of several tools and not
// the tool that ran past its deadline; as the error of a nested call it
// reached the caller of an outer tool without the name of the one that
// timed out (found by p117). Python ("tool T: the deadline passed") and
// WASM ("T ran past its deadline") name it; JS now does too, in process
// and in a worker process.
func TestTimeoutNamesTheTool(t *testing.T) {
	src := `aios.registerTool({ name: 'spin', parameters: { type: 'object' } }, () => { for (;;) {} });
aios.registerTool({ name: 'other', parameters: { type: 'object' } }, () => 1);
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		rt := newRuntime(t, Options{Isolation: iso})
		p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "tools.js", src)}, abi.RuntimeJS)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		for _, cancelled := range []bool{false, true} {
			ctx, cancel := context.WithCancel(context.Background())
			deadline := time.Now().Add(500 * time.Millisecond)
			if cancelled {
				deadline = time.Now().Add(60 * time.Second)
				time.AfterFunc(500*time.Millisecond, cancel)
			}
			fe := newFakeEnv()
			c := &abi.ToolCall{ID: "c1", Caller: "tester", Tool: "spin", Params: map[string]any{}, Deadline: deadline}
			fe.call = c
			_, err := p.Call(ctx, c, fe)
			cancel()
			want := abi.Timeout
			if cancelled {
				want = abi.Cancelled
			}
			if abi.CodeOf(err) != want {
				t.Errorf("%s cancelled=%v: want %s, got %v", iso, cancelled, want, err)
				continue
			}
			if !strings.Contains(err.Error(), "spin") {
				t.Errorf("%s cancelled=%v: %q does not name the tool that was stopped", iso, cancelled, err)
			}
		}
	}
}
