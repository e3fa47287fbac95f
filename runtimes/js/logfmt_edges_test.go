package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLogShowsCollectionsAndCauses: console.log and ctx.log of a Map, a
// Set or a RegExp wrote "{}" (JSON.stringify's text), their contents lost
// from the log; an Error logged with a cause (console.error(new
// Error('saving failed', { cause: e }))) wrote its own stack only, the
// wrapped error lost, and its frames kept goja's program counters
// ("lg.js:4:16(30)") (found by p139). A Set is written as the array of its
// values (as in a result), a Map as an object of its entries, a RegExp as
// its source, and an Error's causes follow it as node prints them, with
// file:line:col frames.
func TestLogShowsCollectionsAndCauses(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "lg.js", `aios.provider({ id: 'org.test.lg' });
aios.registerTool({ name: 'lg', parameters: {} }, (p, ctx) => {
  console.log('m', new Map([['a', 1], [2, new Set(['x'])]]), /re+/g);
  ctx.log.warn({ s: new Set([1, 2]) });
  console.error(new Error('saving failed', { cause: new TypeError('disk full') }));
  return 1;
});
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			c := &abi.ToolCall{ID: "c1", Tool: "lg", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
			env.call = c
			if got, err := p.Call(context.Background(), c, env); err != nil || got != int64(1) {
				t.Fatalf("call: %v %v", got, err)
			}
			env.mu.Lock()
			logs := strings.Join(env.logs, "\n")
			env.mu.Unlock()
			for _, want := range []string{
				`INFO m {"2":["x"],"a":1} /re+/g`,
				`WARN {"s":[1,2]}`,
				"ERROR Error: saving failed\n\tat lg.js:5:17\n",
				"[cause]: TypeError: disk full\n\tat lg.js:5:53",
			} {
				if !strings.Contains(logs, want) {
					t.Errorf("logs lack %q:\n%s", want, logs)
				}
			}
		})
	}
}
