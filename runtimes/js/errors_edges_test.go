package js

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAggregateErrorNamesItsErrors: Promise.any over host calls that
// all failed reached the caller as "AggregateError: " and nothing else;
// the message and data.errors name each error, its code kept.
func TestAggregateErrorNamesItsErrors(t *testing.T) {
	const src = `
aios.registerTool({ name: 'any' }, async (p, ctx) =>
  Promise.any([ctx.callTool('nope', {}), Promise.reject(new TypeError('second'))]));
aios.registerTool({ name: 'thrown' }, () => {
  throw new AggregateError([new RangeError('a'), 'b'], 'many');
});
aios.registerTool({ name: 'one' }, () => { throw new AggregateError([new Error('only')]); });
aios.registerTool({ name: 'lots' }, () => {
  throw new AggregateError(Array.from({ length: 20 }, (_, i) => new Error('e' + i)), 'lots');
});
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "agg.js", src)
	cases := []struct {
		tool string
		want []string
		data []any
	}{
		{"any", []string{`AggregateError; its 2 errors: [0] NotFound: no tool "nope"`, "; [1] TypeError: second (at agg.js:3:"},
			[]any{map[string]any{"code": "NotFound", "message": `no tool "nope"`}, map[string]any{"code": "ProviderError"}}},
		{"thrown", []string{"AggregateError: many (at agg.js:5:", `its 2 errors: [0] RangeError: a (at agg.js:5:`, `[1] uncaught "b"`}, nil},
		{"one", []string{"AggregateError (at agg.js:7:", "; its 1 error: [0] Error: only"}, nil},
		{"lots", []string{"its 20 errors: [0] Error: e0", "[7] Error: e7 (at agg.js:9:", "; and 12 more"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := call(t, p, newFakeEnv(), tc.tool, map[string]any{}, 5*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			for _, w := range tc.want {
				if !strings.Contains(te.Message, w) {
					t.Errorf("message %q lacks %q", te.Message, w)
				}
			}
			if strings.Contains(te.Message, "[8]") {
				t.Errorf("message %q lists more than 8 errors", te.Message)
			}
			data, _ := te.Data.(map[string]any)
			errs, _ := data["errors"].([]any)
			if len(errs) == 0 {
				t.Fatalf("data %v has no errors", te.Data)
			}
			for i, w := range tc.data {
				got := errs[i].(map[string]any)
				for k, v := range w.(map[string]any) {
					if !reflect.DeepEqual(got[k], v) {
						t.Errorf("data.errors[%d].%s = %v, want %v", i, k, got[k], v)
					}
				}
			}
		})
	}
}

// TestErrorCauseNamed: an error wrapping another
// (new Error('saving failed', { cause: err }), ES2022) reached the caller
// as "Error: saving failed" and nothing of err; its cause is named, a
// host error's code kept, and a chain of causes three deep.
func TestErrorCauseNamed(t *testing.T) {
	const src = `
aios.registerTool({ name: 'wrap' }, async (p, ctx) => {
  try { await ctx.callTool('nope', {}); } catch (e) { throw new Error('saving failed', { cause: e }); }
});
aios.registerTool({ name: 'chain' }, () => {
  const a = new RangeError('disk'), b = new Error('write', { cause: a });
  throw new TypeError('save', { cause: b });
});
aios.registerTool({ name: 'plain' }, () => { throw new Error('x', { cause: 'a string' }); });
aios.registerTool({ name: 'loop' }, () => { const e = new Error('me'); e.cause = e; throw e; });
aios.registerTool({ name: 'none' }, () => { throw new Error('alone'); });
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "cause.js", src)
	cases := []struct {
		tool  string
		want  []string
		cause map[string]any
	}{
		{"wrap", []string{"Error: saving failed (at cause.js:3:", `; cause: NotFound: no tool "nope"`},
			map[string]any{"code": "NotFound", "message": `no tool "nope"`}},
		{"chain", []string{"TypeError: save (at cause.js:7:", "; cause: Error: write (at cause.js:6:", "; cause: RangeError: disk (at cause.js:6:"}, nil},
		{"plain", []string{`Error: x (at cause.js:9:`, `; cause: uncaught "a string"`}, nil},
		{"loop", []string{"Error: me (at cause.js:10:", "; cause: Error: me"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := call(t, p, newFakeEnv(), tc.tool, map[string]any{}, 5*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			for _, w := range tc.want {
				if !strings.Contains(te.Message, w) {
					t.Errorf("message %q lacks %q", te.Message, w)
				}
			}
			if n := strings.Count(te.Message, "; cause:"); n > 3 {
				t.Errorf("message %q follows %d causes, more than 3", te.Message, n)
			}
			data, _ := te.Data.(map[string]any)
			c, _ := data["cause"].(map[string]any)
			if c == nil {
				t.Fatalf("data %v has no cause", te.Data)
			}
			for k, v := range tc.cause {
				if c[k] != v {
					t.Errorf("data.cause.%s = %v, want %v", k, c[k], v)
				}
			}
		})
	}
	_, err := call(t, p, newFakeEnv(), "none", map[string]any{}, 5*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if strings.Contains(te.Message, "; cause:") || te.Data.(map[string]any)["cause"] != nil {
		t.Errorf("an error without a cause is given one: %q %v", te.Message, te.Data)
	}
}

// TestThrownObjectShown: a thrown plain object (throw {status: 404,
// reason: 'missing'}, as code written against an HTTP client does) reached
// the caller as "uncaught [object Object]"; a plain object or array is shown
// as its JSON, cut at 200 bytes.
func TestThrownObjectShown(t *testing.T) {
	const src = `
aios.registerTool({ name: 'obj' }, () => { throw { status: 404, reason: 'missing' }; });
aios.registerTool({ name: 'arr' }, () => { throw [1, 'two']; });
aios.registerTool({ name: 'big' }, () => { throw { text: 'x'.repeat(1000) }; });
aios.registerTool({ name: 'fn' }, () => { throw { f() {} }; });
aios.registerTool({ name: 'rejected' }, async () => Promise.reject({ code: 'E_HTTP', status: 500 }));
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "obj.js", src)
	cases := []struct{ tool, want string }{
		{"obj", `uncaught {"reason":"missing","status":404} (at obj.js:2:`},
		{"arr", `uncaught [1,"two"] (at obj.js:3:`},
		{"big", `uncaught {"text":"xxxxxxxx`},
		{"fn", `uncaught {"f":"[Function: f]"} (at obj.js:5:`}, // as the log shows it (TestThrownCyclicAndCollectionsNamed)
		{"rejected", `uncaught {"code":"E_HTTP","status":500}`},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := call(t, p, newFakeEnv(), tc.tool, map[string]any{}, 5*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			if !strings.Contains(te.Message, tc.want) {
				t.Errorf("message %q lacks %q", te.Message, tc.want)
			}
			if len(te.Message) > 300 {
				t.Errorf("message is %d bytes, not cut: %q", len(te.Message), te.Message)
			}
		})
	}
}
