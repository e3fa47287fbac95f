package js

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestUnsafeIntegerNumberStaysNumber: a JS number ±2^53 (not a safe
// integer: Number.isSafeInteger(2 ** 53) is false, 2 ** 53 + 1 rounds to
// it) left a handler as int64, while the host's integers beyond ±(2^53-1)
// enter JS as BigInt, so a JS tool returning 2 ** 53 to a JS caller of
// ctx.callTool handed it a BigInt where it returned a number (found by
// p184): r.n + 1 threw "Cannot mix BigInt and other types". Only safe
// integers become int64 now; ±2^53 is a float64, as 2 ** 53 + 2 is, and
// reaches the caller as the number it was.
func TestUnsafeIntegerNumberStaysNumber(t *testing.T) {
	const src = `
aios.registerTool({ name: 'inner' }, () => ({ n: 2 ** 53, m: -(2 ** 53), s: 2 ** 53 - 1 }));
aios.registerTool({ name: 'outer' }, async (p, ctx) => {
  const r = await ctx.callTool('inner', {});
  return { n: typeof r.n, m: typeof r.m, s: typeof r.s, next: r.n + 1 };
});
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			var p abi.Provider
			if iso == IsolationProcess {
				p = loadIsolated(t, Options{}, src)
			} else {
				p = loadSource(t, newRuntime(t, Options{}), "safeint.js", src)
			}
			env := newFakeEnv()
			got, err := callIsolated(t, p, env, "inner", map[string]any{}, 10*time.Second)
			want := map[string]any{"n": float64(1 << 53), "m": -float64(1 << 53), "s": int64(1<<53 - 1)}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("inner gave %#v (%v), want %#v", got, err, want)
			}
			env.tools["inner"] = func(context.Context, any) (any, error) { return got, nil }
			got, err = callIsolated(t, p, env, "outer", map[string]any{}, 10*time.Second)
			want = map[string]any{"n": "number", "m": "number", "s": "number", "next": float64(1 << 53)}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("a JS caller of a JS tool returning 2 ** 53 saw %#v (%v), want %#v", got, err, want)
			}
		})
	}
}
