package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestBusyHandlerTimeoutNamesToolAndLine: a handler stopped at its
// deadline while it computed (a loop that never ends) failed with
// "deadline exceeded: the JS handler of provider /…/file.ts was
// interrupted": neither which of the provider's tools it was nor where in
// the file it looped, where a thrown error names its file:line and a
// WASM guest's timeout its tool (found by p118). The message now names
// the tool and the source line (mapped to the .ts) it was stopped at, in
// a worker process as in-process, and the provider by its id and file.
func TestBusyHandlerTimeoutNamesToolAndLine(t *testing.T) {
	src := `aios.registerTool({ name: 'other' }, () => 1);
aios.registerTool({ name: 'busy-tool' }, (p: unknown): number => {
  let i: number = 0;
  while (i >= 0) { i = (i + 1) % 1000; }
  return i;
});
aios.registerTool({ name: 'timer-tool' }, () => new Promise((resolve) => {
  setTimeout(() => {
    let j = 0; while (j >= 0) { j = (j + 1) % 7; }
  }, 1);
}));
`
	cases := []struct{ tool, line string }{{"busy-tool", "prov.ts:4:"}, {"timer-tool", "prov.ts:9:"}}
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			path := writeSource(t, "prov.ts", src)
			p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			for _, tc := range cases {
				fe := newFakeEnv()
				c := &abi.ToolCall{ID: "c1", Tool: tc.tool, Params: map[string]any{}, Deadline: time.Now().Add(500 * time.Millisecond)}
				fe.call = c
				_, err = p.Call(context.Background(), c, fe)
				if abi.CodeOf(err) != abi.Timeout {
					t.Fatalf("%s: want Timeout, got %v", tc.tool, err)
				}
				// The provider by its id, then its file (it named the file
				// alone, found by p179).
				id := p.Describe().Provider.ID
				for _, w := range []string{"tool " + tc.tool, tc.line, "of provider " + id + " (" + path + ")"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q lacks %q", err, w)
					}
				}
			}
		})
	}
}
