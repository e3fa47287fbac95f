package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAsyncThrownValueNamesHandler: a value that is not an Error thrown by
// an async handler (throw 'not found', throw {reason: …}, a
// Promise.reject('x') returned) reached the caller as `uncaught "not
// found"` and nothing more, where the same throw in a sync handler names
// "(at f.js:2:70)": the rejection carries no stack, and nothing said which
// tool's handler or file it came from (found by p139). It now names the
// tool and the line its handler was registered at, and says to throw an
// Error to get the line it was thrown at; a sync throw and an Error keep
// their own line.
func TestAsyncThrownValueNamesHandler(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "at.ts", `aios.provider({ id: 'org.test.at' });
const x: number = 1;
aios.registerTool({ name: 'str', parameters: {} }, async () => { await null; throw 'not found'; });
aios.registerTool({ name: 'obj', parameters: {} }, async () => { throw { reason: 'missing' }; });
aios.registerTool({ name: 'rej', parameters: {} },
  () => Promise.reject(undefined));
aios.registerTool({ name: 'sync', parameters: {} }, () => { throw 'sync'; });
aios.registerTool({ name: 'err', parameters: {} }, async () => { await null; throw new Error('e'); });
aios.registerTool({ name: 'coded', parameters: {} }, async () => { throw { code: 'NotFound', message: 'gone' }; });
`)}, abi.RuntimeTS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			do := func(tool string) *abi.ToolError {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
				env.call = c
				_, err := p.Call(context.Background(), c, env)
				if err == nil {
					t.Fatalf("%s: success, want an error", tool)
				}
				te, ok := err.(*abi.ToolError)
				if !ok {
					t.Fatalf("%s: %T %v", tool, err, err)
				}
				return te
			}
			for tool, want := range map[string]string{
				"str": `uncaught "not found" (rejected by the handler of tool str, registered at at.ts:3:`,
				"obj": `uncaught {"reason":"missing"} (rejected by the handler of tool obj, registered at at.ts:4:`,
				"rej": `uncaught undefined (rejected by the handler of tool rej, registered at at.ts:5:`,
			} {
				te := do(tool)
				if te.Code != abi.ProviderError || !strings.Contains(te.Message, want) || !strings.Contains(te.Message, "throw an Error") {
					t.Errorf("%s: %s %q, want ProviderError containing %q and what to do", tool, te.Code, te.Message, want)
				}
			}
			if te := do("sync"); !strings.HasSuffix(te.Message, `uncaught "sync" (at at.ts:7:61)`) {
				t.Errorf("sync: %q, want its throw's line alone", te.Message)
			}
			if te := do("err"); !strings.HasSuffix(te.Message, "Error: e (at at.ts:8:84)") {
				t.Errorf("err: %q, want its throw's line alone", te.Message)
			}
			if te := do("coded"); te.Code != abi.NotFound || te.Message != "gone" {
				t.Errorf("coded: %s %q, want NotFound gone", te.Code, te.Message)
			}
		})
	}
}
