package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/dop251/goja"
)

// TestTypedJoinAndConcatSized: a typed array's join (its own method, not
// Array.prototype's) and String.prototype.concat build their result in
// one native loop: new Uint8Array(1e5).join(a 1000-character separator)
// is 100 million characters under a budget of 32 MiB, and concat of the
// same string a hundred times as many, each step of the loop out of the
// interrupt's reach (the runtime was abandoned, going on allocating,
// or the call succeeded). Both are a RangeError naming the budget before
// they start, and what is within it is unchanged.
func TestTypedJoinAndConcatSized(t *testing.T) {
	src := `aios.provider({ id: 'org.test.joinconcat' });
aios.registerTool({ name: 'typedJoin', parameters: { type: 'object' } }, (p: any) => new Uint8Array(p.n).join('y'.repeat(1000)).length);
aios.registerTool({ name: 'floatJoin', parameters: { type: 'object' } }, (p: any) => new Float64Array(p.n).fill(-1.7976931348623157e308).join().length);
aios.registerTool({ name: 'concat', parameters: { type: 'object' } }, (p: any) => { const s = 'x'.repeat(1e6); return ''.concat(...Array(p.n).fill(s)).length; });
aios.registerTool({ name: 'concatObject', parameters: { type: 'object' } }, (p: any) => { const s = 'x'.repeat(1e6); return s.concat(...Array(p.n).fill({ toString: () => s })).length; });
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => JSON.stringify(` + joinConcatCases + `));`
	rt := newRuntime(t, Options{MemoryBudget: 32 << 20})
	p := loadSource(t, rt, "joinconcat.ts", src)
	env := newFakeEnv()
	for _, c := range []struct {
		tool string
		n    int
	}{{"typedJoin", 100000}, {"floatJoin", 1 << 20}, {"concat", 100}, {"concatObject", 100}} {
		t.Run(c.tool, func(t *testing.T) {
			_, err := call(t, p, env, c.tool, map[string]any{"n": c.n}, time.Minute)
			te := wantCode(t, err, abi.ProviderError)
			if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "memory budget (32 MiB)") ||
				!strings.Contains(te.Message, "(at joinconcat.ts:") {
				t.Errorf("message %q: want a RangeError naming the 32 MiB budget, at the provider's line", te.Message)
			}
		})
	}
	res, err := call(t, p, env, "ok", map[string]any{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// The same calls in a goja runtime without the limits.
	want, err := goja.New().RunString("JSON.stringify(" + joinConcatCases + ")")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(string); got != want.String() {
		t.Fatalf("results changed:\n got %s\nwant %s", got, want)
	}
}

// joinConcatCases are joins and concatenations within the budget, some
// large enough for the join's quick bound to be passed (a Float64Array of
// a million zeros: 24 characters each at most, 2 in fact).
const joinConcatCases = `[
  new Uint8Array([1, 2, 255]).join('-'), new Int8Array([-128, 0]).join(), new Float32Array([1.1, -0]).join(';'),
  new BigInt64Array([-9223372036854775808n, 5n]).join(), new Float64Array([NaN, Infinity, 1e21, 0.1]).join(' '),
  new Float64Array(1e6).join().length, new Uint32Array(2e5).fill(4294967295).join('ab').length,
  'a'.concat('b', 1, null, undefined, {toString: () => 'c'}, [1, 2]), ''.concat(...Array(3).fill('x'.repeat(1e6))).length]`
