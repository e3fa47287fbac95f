package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestHostCallArgTypeIsInvalidParams: the same mistake in a tool of
// either scripting runtime — a host call's argument of another type,
// ctx.callTool(5, {}) or ctx.callTool('t', {}, 5), an ai.complete option
// maxTokens: '100' — reached the caller as InvalidParams from Python (its
// SDK raises ToolError InvalidParams; docs/python.md: "as JS throws") but
// as ProviderError "TypeError: …" from JS. The TypeError now carries code
// InvalidParams (still a TypeError to a handler that catches it), in
// both isolations.
func TestHostCallArgTypeIsInvalidParams(t *testing.T) {
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

// TestLoneSurrogateStringRefused: a string result holding half of a
// UTF-16 surrogate pair ('a\ud800b', text cut inside an emoji) reached the
// caller as "a\ufffdb", changed without a word, where a Python tool's
// lone surrogate and a WASM guest's invalid UTF-8 are InvalidResult
// naming the path (docs/python.md "never sent as U+FFFD", docs/abi.md
// section 2). JS refuses it alike now; a real U+FFFD and whole pairs pass
// unchanged.
func TestLoneSurrogateStringRefused(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "lone.js", `
aios.registerTool({name: 'lone', parameters: {type: 'object'}}, () => ({r: ['ok', 'a\ud800b']}));
aios.registerTool({name: 'low', parameters: {type: 'object'}}, () => '\udc00');
aios.registerTool({name: 'fine', parameters: {type: 'object'}}, () => ({r: '\ufffd😀x\ud83d\ude00'}));
aios.registerTool({name: 'nested', parameters: {type: 'object'}}, async (p, ctx) => {
  try { await ctx.callTool('t', {s: '\ud800'}); return 'sent'; } catch (e) { return e.name + ': ' + e.message; }
});`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			call := func(tool string) (any, error) {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(5 * time.Second)}
				env.call = c
				return p.Call(context.Background(), c, env)
			}
			_, err = call("lone")
			if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, "$.r[1]") || !strings.Contains(te.Message, `\ud800 at index 1`) {
				t.Errorf("lone: %q does not name the path $.r[1] and the surrogate", te.Message)
			}
			_, err = call("low")
			if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, `\udc00 at index 0`) {
				t.Errorf("low: %q does not name the surrogate", te.Message)
			}
			got, err := call("fine")
			if m, _ := got.(map[string]any); err != nil || m["r"] != "\ufffd😀x😀" {
				t.Errorf("fine: %#v %v; want the text unchanged", got, err)
			}
			got, err = call("nested")
			if s, _ := got.(string); err != nil || !strings.HasPrefix(s, "TypeError: ctx.callTool") || !strings.Contains(s, `\ud800`) {
				t.Errorf("nested: %#v %v; want a TypeError naming the surrogate", got, err)
			}
		})
	}
}
