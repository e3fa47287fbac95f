package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeHostCallArgTypeIsInvalidParams: the same mistake in a tool of
// either scripting runtime — a host call's argument of another type,
// ctx.callTool(5, {}) or ctx.callTool('t', {}, 5), an ai.complete option
// maxTokens: '100' — reached the caller as InvalidParams from Python (its
// SDK raises ToolError InvalidParams; docs/python.md: "as JS throws") but
// as ProviderError "TypeError: …" from JS. The TypeError now carries code
// InvalidParams (still a TypeError to a handler that catches it), in
// both isolations.
func TestProbeHostCallArgTypeIsInvalidParams(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "argtypes.js", `
const cases = {
  tool: (ctx) => ctx.callTool(5, {}),
  version: (ctx) => ctx.callTool('t', {}, 5),
  missing: (ctx) => ctx.callTool(),
  read: (ctx) => ctx.spaces.read(7),
  option: (ctx) => ctx.ai.complete('hi', {maxTokens: '100'}),
};
aios.registerTool({name: 'bad', parameters: {type: 'object'}}, async (p, ctx) => await cases[p.c](ctx));
aios.registerTool({name: 'caught', parameters: {type: 'object'}}, async (p, ctx) => {
  try { await cases[p.c](ctx); return 'no error'; }
  catch (e) { return {type: e instanceof TypeError, code: e.code}; }
});`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			call := func(p abi.Provider, env *fakeEnv, tool string, params any) (any, error) {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: params, Deadline: time.Now().Add(5 * time.Second)}
				env.call = c
				return p.Call(context.Background(), c, env)
			}
			for _, c := range []string{"tool", "version", "missing", "read", "option"} {
				_, err := call(p, env, "bad", map[string]any{"c": c})
				if te := wantCode(t, err, abi.InvalidParams); !strings.Contains(te.Message, "ctx.") {
					t.Errorf("%s: message %q does not name the host call", c, te.Message)
				}
				got, err := call(p, env, "caught", map[string]any{"c": c})
				m, _ := got.(map[string]any)
				if err != nil || m["type"] != true || m["code"] != "InvalidParams" {
					t.Errorf("%s caught: %v %v; want a TypeError with code InvalidParams", c, got, err)
				}
			}
		})
	}
}
