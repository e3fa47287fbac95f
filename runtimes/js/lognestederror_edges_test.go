package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLogShowsNestedError: an Error inside a logged object or array
// (console.log({ err }), ctx.log([e]), what a tool logs as
// { step, err } in a catch) was written as {}, its message and where it was
// thrown lost, though a top-level one is written as its stack; and a thrown
// plain object holding one ({ err: e, n: 1 }) said `uncaught {"err":{},"n":1}`
// (found by p159). A nested Error is written as a top-level one is, its
// stack and causes, in a log line and in what a thrown object is shown as.
func TestLogShowsNestedError(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "nested.js", `aios.provider({ id: 'org.test.nested' });
aios.registerTool({ name: 'lg', parameters: {} }, (p, ctx) => {
  const e = new RangeError('disk full');
  ctx.log({ step: 'save', err: e });
  console.log([e]);
  return 1;
});
aios.registerTool({ name: 'thr', parameters: {} }, () => { throw { err: new TypeError('bad row'), n: 1 }; });
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
				`INFO {"step":"save","err":"RangeError: disk full\n\tat nested.js:3:`,
				`INFO ["RangeError: disk full\n\tat nested.js:3:`,
			} {
				if !strings.Contains(logs, want) {
					t.Errorf("logs lack %q:\n%s", want, logs)
				}
			}
			c2 := &abi.ToolCall{ID: "c2", Tool: "thr", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
			env.call = c2
			_, err = p.Call(context.Background(), c2, env)
			te := wantCode(t, err, abi.ProviderError)
			if !strings.Contains(te.Message, `uncaught {"err":"TypeError: bad row\n\tat nested.js:8:`) {
				t.Errorf("message %q does not show the Error inside the thrown object", te.Message)
			}
		})
	}
}
