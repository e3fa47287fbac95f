package js

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCallToolParamValues: ctx.callTool params that JSON cannot carry
// (NaN, ±Infinity, a BigInt past 2^64−1, a Map) fail the await with an
// error naming the path, in both isolation modes, and the tool is never
// called with them; the values it can carry (-0, BigInt at the uint64
// edge, undefined members dropped, nested empties) reach it as the
// in-process runtime hands them over.
func TestCallToolParamValues(t *testing.T) {
	const src = `
const bad = {
  nan: () => ({ a: [1, NaN] }),
  inf: () => ({ a: { b: -Infinity } }),
  big: () => ({ a: 2n ** 64n }),
  map: () => ({ a: new Map([[1, 2]]) }),
};
aios.registerTool({ name: 'bad' }, async (p, ctx) => {
  try {
    await ctx.callTool('x', bad[p.case]());
    return { sent: true };
  } catch (e) {
    return { caught: String(e.message || e) };
  }
});
aios.registerTool({ name: 'good' }, async (p, ctx) => ctx.callTool('x', {
  negz: -0, maxu: 2n ** 64n - 1n, minI: -(2n ** 63n), u: undefined, e: [[], {}], s: "\u0000\u2028",
}));
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			var p abi.Provider
			if iso == IsolationProcess {
				p = loadIsolated(t, Options{}, src)
			} else {
				p = loadSource(t, newRuntime(t, Options{}), "vals.js", src)
			}
			env := newFakeEnv()
			var got any
			env.tools["x"] = func(_ context.Context, params any) (any, error) { got = params; return "ok", nil }
			for _, c := range []struct{ name, want string }{
				{"nan", "$.a[1]"}, {"inf", "$.a.b"}, {"big", "$.a"}, {"map", "$.a"},
			} {
				got = nil
				v, err := callIsolated(t, p, env, "bad", map[string]any{"case": c.name}, 5*time.Second)
				m, _ := v.(map[string]any)
				msg, _ := m["caught"].(string)
				if err != nil || msg == "" || !strings.Contains(msg, c.want) {
					t.Errorf("%s: %#v, %v; want the await to fail naming %s", c.name, v, err, c.want)
				}
				if got != nil {
					t.Errorf("%s: the tool was called with %#v", c.name, got)
				}
			}
			got = nil
			if _, err := callIsolated(t, p, env, "good", map[string]any{}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"negz": int64(0), "maxu": uint64(math.MaxUint64), "minI": int64(math.MinInt64),
				"e": []any{[]any{}, map[string]any{}}, "s": "\x00\u2028"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the tool got %#v, want %#v", got, want)
			}
		})
	}
}
