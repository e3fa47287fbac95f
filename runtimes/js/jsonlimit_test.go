package js

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/dop251/goja"
)

// stringifyCases are JSON.stringify calls whose result (or error name and
// message) must be the same with the budgeted replacement as with goja's
// own implementation.
const stringifyCases = `[
  () => JSON.stringify(1), () => JSON.stringify(-0), () => JSON.stringify(1.5e300), () => JSON.stringify(NaN),
  () => JSON.stringify(-Infinity), () => JSON.stringify('a\u2028"b\\\n\u0001'), () => JSON.stringify('\ud800x'),
  () => JSON.stringify(true), () => JSON.stringify(null), () => JSON.stringify(undefined),
  () => JSON.stringify(function () {}), () => JSON.stringify(Symbol('s')), () => JSON.stringify(),
  () => JSON.stringify({ a: [1, { b: 2 }], c: 'x', d: undefined, e: () => 1, [Symbol('k')]: 1, 'ключ': 'é' }),
  () => JSON.stringify([, 1, , undefined, () => 1, Symbol('x')]),
  () => JSON.stringify({ toJSON(k) { return { k: k }; } }), () => JSON.stringify({ x: { toJSON(k) { return k + '!'; } } }),
  () => JSON.stringify(new Date(0)), () => JSON.stringify([new Date(0)]),
  () => JSON.stringify({ a: 1, b: [2, 3] }, (k, v) => typeof v === 'number' ? v * 2 : v),
  () => JSON.stringify({ a: 1, b: 2 }, (k, v) => k === 'a' ? undefined : v),
  () => JSON.stringify([1, 2], (k, v) => k === '0' ? undefined : v),
  () => JSON.stringify({ a: 1 }, function (k, v) { return k === '' ? [typeof this, Object.keys(this).length] : v; }),
  () => JSON.stringify({ a: 1, b: 2, c: 3 }, ['b', 'a']),
  () => JSON.stringify({ a: { b: 1, a: 2, c: 3 }, b: [{ a: 1, b: 2, z: 3 }] }, ['b', 'a']),
  () => JSON.stringify({ 1: 'one', 2: 'two', x: 1 }, [1, '1', 2, new String('x'), new Number(2), {}, null, true]),
  () => JSON.stringify(Object.create({ a: 1 }), ['a']), () => JSON.stringify({ a: undefined, b: () => 1, c: 3 }, ['a', 'b', 'c']),
  () => JSON.stringify({ a: { toJSON() { return { a: 5, q: 6 }; } } }, ['a']),
  () => JSON.stringify([1, [2, { a: 3, b: 4 }]], ['a']), () => JSON.stringify({ a: 1 }, []),
  () => JSON.stringify({ a: new Number(1), b: new String('s'), c: new Boolean(false) }, ['a', 'b', 'c']),
  () => JSON.stringify({ a: [1, { b: 2 }] }, null, 2), () => JSON.stringify({ a: [1, { b: 2 }] }, null, '--'),
  () => JSON.stringify({ a: [] , b: {} }, null, new Number(3)), () => JSON.stringify([1], null, new String('\t')),
  () => JSON.stringify({ a: 1 }, null, 20), () => JSON.stringify({ a: 1 }, null, 'abcdefghijklmnop'),
  () => JSON.stringify({ a: { b: 1 } }, ['a', 'b'], 1), () => JSON.stringify([1], null, -5), () => JSON.stringify([1], null, 2.7),
  () => JSON.stringify(new Number(3)), () => JSON.stringify(new String('s')), () => JSON.stringify(new Boolean(false)),
  () => JSON.stringify(1n), () => JSON.stringify({ a: 1n }), () => JSON.stringify(Object(1n)),
  () => JSON.stringify({ a: 1n }, (k, v) => typeof v === 'bigint' ? String(v) : v),
  () => { const a = {}; a.self = a; return JSON.stringify(a); },
  () => { const a = {}; a.self = a; return JSON.stringify(a, ['self']); },
  () => { const a = {}; a.x = { y: [a] }; return JSON.stringify(a, ['x', 'y']); },
  () => { const a = []; a.push(a); return JSON.stringify(a); },
  () => { const s = { v: 1 }; return JSON.stringify({ a: s, b: s, c: [s, s] }, ['a', 'b', 'c', 'v']); },
  () => JSON.stringify(new Proxy({ a: 1 }, {})), () => JSON.stringify(new Proxy([1, 2], {})),
  () => JSON.stringify({ get x() { return 5; } }), () => JSON.stringify({ get x() { return 5; } }, ['x']),
  () => JSON.stringify({ toJSON() { return JSON.stringify([1, { a: 2 }]); } }),
  () => JSON.stringify({ a: 1 }, (k, v) => { if (k === 'a') throw new Error('in replacer'); return v; }),
  () => JSON.stringify({ toJSON() { throw new TypeError('in toJSON'); } }),
  () => JSON.stringify(new Map([[1, 2]])), () => JSON.stringify(new Uint8Array([1, 2])), () => JSON.stringify(/x/),
  () => typeof JSON.rawJSON === 'function' ? JSON.stringify({ x: JSON.rawJSON('1e1000'), y: [JSON.rawJSON('"s"')] }) : 'none',
  () => JSON.stringify.name + JSON.stringify.length + Object.getOwnPropertyNames(JSON).sort().join(),
]`

func TestStringifyMatchesGoja(t *testing.T) {
	run := `(function () { return (` + stringifyCases + `).map(function (f) {
  try { var r = f(); return r === undefined ? 'undefined' : r; } catch (e) { return 'ERR ' + e.name + ': ' + e.message; }
}); })()`
	vm := goja.New()
	want, err := vm.RunString(run)
	if err != nil {
		t.Fatal(err)
	}
	wantList := want.Export().([]any)

	rt := newRuntime(t, Options{MemoryBudget: 64 << 20})
	p := loadSource(t, rt, "cases.js", `aios.registerTool({ name: 'cases', parameters: { type: 'object' } }, () => `+run+`);`)
	res, err := call(t, p, newFakeEnv(), "cases", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := res.([]any)
	if len(got) != len(wantList) {
		t.Fatalf("%d results, want %d", len(got), len(wantList))
	}
	for i := range got {
		if got[i] != wantList[i] {
			t.Errorf("case %d: got %q, want (goja) %q", i, got[i], wantList[i])
		}
	}
	b, _ := json.Marshal(got)
	t.Logf("%d cases: %s", len(got), b)
}

// JSON.stringify asked for a text far past the budget is a RangeError
// before the text is made, whatever leads to it: holes, one large string
// repeated, a toJSON result, a property list, a replacer, an indent.
// console.log of the same holes no longer goes through JSON.stringify: its
// walk stops at the line's 60 KiB (TestLogValueWalkBounded), so the call
// succeeds at once and logs a line within the host's 64 KiB.
func TestStringifyBudget(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 16 << 20})
	p := loadSource(t, rt, "bombs.js", `
const sparse = () => { const a = []; a.length = 2 ** 32 - 1; return a; };
const big = 'x'.repeat(1 << 20);
const bombs = {
  holes: () => JSON.stringify(sparse()).length,
  nested: () => JSON.stringify({ a: { b: [1, sparse()] } }).length,
  repeated: () => JSON.stringify(new Array(4096).fill(big)).length,
  repeatedKeys: () => { const o = {}; for (let i = 0; i < 4096; i++) o['k' + i] = big; return JSON.stringify(o).length; },
  toJSON: () => JSON.stringify({ toJSON() { return sparse(); } }).length,
  list: () => JSON.stringify({ a: sparse() }, ['a']).length,
  listToJSON: () => JSON.stringify({ a: { toJSON() { return sparse(); } } }, ['a']).length,
  replacer: () => JSON.stringify({ a: 1 }, (k, v) => k === 'a' ? sparse() : v).length,
  indent: () => JSON.stringify(new Array(2 ** 17).fill([[[[[[[[]]]]]]]]), null, 10).length,
  boxed: () => JSON.stringify(new Array(512).fill(new String(big.repeat(8)))).length,
  consoleLog: () => { console.log(sparse()); return 1; },
};
for (const name of Object.keys(bombs)) aios.registerTool({ name, parameters: { type: 'object' } }, bombs[name]);
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => [
  JSON.stringify(new Array(200).fill('y'.repeat(1000))).length,
  JSON.stringify(new Array(20000)).length,
]);
`)
	env := newFakeEnv()
	for _, name := range []string{"holes", "nested", "repeated", "repeatedKeys", "toJSON", "list", "listToJSON", "replacer", "indent", "boxed"} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := call(t, p, env, name, map[string]any{}, 30*time.Second)
			var te *abi.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a ToolError", err)
			}
			// Refused in advance (a RangeError), or, when the text's lower
			// bound stays under the budget while the heap passes it, by the
			// heap guard's interrupt seen at the next value.
			refused := te.Code == abi.ProviderError && strings.Contains(te.Message, "RangeError") && strings.Contains(te.Message, "memory budget (16 MiB)")
			guarded := te.Code == abi.ProviderCrashed && strings.Contains(te.Message, "memory budget exceeded")
			if !refused && !guarded {
				t.Errorf("%s %q: want a RangeError naming the 16 MiB budget or the heap guard's error", te.Code, te.Message)
			}
			t.Logf("%s: %s", te.Code, te.Message)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
	t.Run("consoleLog", func(t *testing.T) {
		logEnv := newFakeEnv()
		start := time.Now()
		if _, err := call(t, p, logEnv, "consoleLog", map[string]any{}, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %s", d)
		}
		if len(logEnv.logs) != 1 || len(logEnv.logs[0]) > 64<<10 || !strings.HasPrefix(logEnv.logs[0], "INFO [null,null,") {
			t.Errorf("logged %d lines (the first %.100q, %d bytes); want one line of nulls within 64 KiB", len(logEnv.logs), logEnv.logs, len(strings.Join(logEnv.logs, "")))
		}
	})
	res, err := call(t, p, env, "ok", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, res); got != "[200601,100001]" {
		t.Errorf("ok: %s", got)
	}
}

// A JSON.stringify that is within the budget but runs past the deadline
// stops at the deadline: the interrupt is seen at the next value.
func TestStringifyStopsAtDeadline(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 256 << 20, PoolSize: 1, LoadTimeout: 2 * time.Minute})
	p := loadSource(t, rt, "slow.js", `
const big = new Array(2e6).fill({ x: 1, y: [1, 2] });
aios.registerTool({ name: 'slow', parameters: { type: 'object' } }, () => JSON.stringify(big).length);
aios.registerTool({ name: 'fast', parameters: { type: 'object' } }, () => JSON.stringify({ a: 1 }));
`)
	env := newFakeEnv()
	start := time.Now()
	_, err := call(t, p, env, "slow", map[string]any{}, 300*time.Millisecond)
	te := wantCode(t, err, abi.Timeout)
	t.Logf("stopped after %s: %s", time.Since(start), te.Message)
	if strings.Contains(te.Message, "abandoned") {
		t.Errorf("the runtime ran on past the deadline: %s", te.Message)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopped after %s, deadline 300ms", d)
	}
	if res, err := call(t, p, env, "fast", map[string]any{}, 2*time.Minute); err != nil || res != `{"a":1}` {
		t.Fatalf("next call: %v %v", res, err)
	}
}

// An outer join whose members are arrays (each joined by the wrapped
// Array.prototype.toString inside the outer join's native loop) stops when
// the heap guard interrupts it, at the next member, instead of running on
// until the text is made.
func TestNestedJoinStopsAtInterrupt(t *testing.T) {
	// The join must stop at its next member once interrupted; a member
	// (a 1 Mi-character join) can take longer than the 250 ms grace under
	// -race on a loaded machine (a CI run saw it abandoned), so the grace
	// is longer here: without the fix the join never stops (64 Gi
	// characters) and is abandoned all the same.
	graceNs.Store(int64(3 * time.Second))
	t.Cleanup(func() { graceNs.Store(int64(defaultAbandonGrace)) })
	rt := newRuntime(t, Options{MemoryBudget: 32 << 20})
	p := loadSource(t, rt, "nested.js", `
aios.registerTool({ name: 'nested', parameters: { type: 'object' } }, () => {
  const inner = new Array(256).fill('x'.repeat(1 << 12)); // 1 Mi characters once joined
  return new Array(65536).fill(inner).join('').length;    // 64 Gi characters
});
`)
	start := time.Now()
	_, err := call(t, p, newFakeEnv(), "nested", map[string]any{}, 2*time.Minute)
	te := wantCode(t, err, abi.ProviderCrashed)
	t.Logf("after %s: %s", time.Since(start), te.Message)
	if !strings.Contains(te.Message, "memory budget exceeded") || strings.Contains(te.Message, "abandoned") {
		t.Errorf("%q: want the heap guard's error, the runtime stopped (not abandoned)", te.Message)
	}
}
