package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// limitsProvider asks built-ins for results far beyond the machine's
// memory in one native step. Without limits.js each of these ends the
// whole test process with Go's fatal "out of memory" (no panic to recover:
// measured with 'x'.repeat(2 ** 36) and new ArrayBuffer(2 ** 38)); with it
// each is a RangeError before anything is allocated.
const limitsProvider = `
const huge = 2 ** 40;
const bombs: Record<string, () => unknown> = {
  repeat: () => 'x'.repeat(huge),
  repeatLong: () => 'abcdefgh'.repeat(2 ** 33),
  padStart: () => 'x'.padStart(huge),
  padEnd: () => ''.padEnd(2 ** 36, 'ab'),
  arrayBuffer: () => new ArrayBuffer(2 ** 38),
  uint8: () => new Uint8Array(2 ** 38),
  float64: () => new Float64Array(2 ** 35),
  typedFromArrayLike: () => new Int32Array({ length: 2 ** 36 }),
  subclassed: () => { class Big extends Uint8Array {} return new Big(2 ** 38); },
  viaConstructor: () => new (new Uint8Array(1).constructor as any)(2 ** 38),
  viaPrototype: () => new (Object.getPrototypeOf(new ArrayBuffer(1)).constructor)(2 ** 38),
  newArray: () => new Array(2 ** 31),
  callArray: () => (Array as any)(2 ** 31),
  arrayViaLiteral: () => new ([] as any).constructor(2 ** 31),
  fill: () => { const a: number[] = []; a.length = 2 ** 31; return a.fill(0).length; },
  join: () => { const a: unknown[] = []; a.length = 2 ** 32 - 1; return a.join('').length; },
  joinSeparator: () => new Array(2 ** 20).join('x'.repeat(2 ** 12)).length,
  spread: () => { const a: unknown[] = []; a.length = 2 ** 31; return [...a].length; },
  spreadCall: () => { const a: number[] = []; a.length = 2 ** 31; return Math.max(...a); },
  forOf: () => { const a: unknown[] = []; a.length = 2 ** 31; let n = 0; for (const _ of a) n++; return n; },
  spreadKeys: () => { const a: unknown[] = []; a.length = 2 ** 31; return [...a.keys()].length; },
  fromKeys: () => { const a: unknown[] = []; a.length = 2 ** 31; return Array.from(a.keys()).length; },
  fromArrayLike: () => Array.from({ length: 2 ** 31 }).length,
  map: () => { const a: unknown[] = []; a.length = 2 ** 31; return a.map((x) => x).length; },
  slice: () => { const a: unknown[] = []; a.length = 2 ** 31; return a.slice().length; },
  concat: () => { const a: unknown[] = []; a.length = 2 ** 31; return a.concat(a).length; },
  split: () => 'x'.repeat(2 ** 23).split('').length,
  splitSeparator: () => ','.repeat(2 ** 23).split(',').length,
  apply: () => Math.max.apply(null, { length: 2 ** 31 } as any),
  reflectApply: () => Reflect.apply(Math.max, null, { length: 2 ** 31 } as any),
  viaStaticsChain: () => new (Object.getPrototypeOf(Array))(2 ** 31),
  viaStaticsChainTyped: () => new (Object.getPrototypeOf(Uint8Array))(2 ** 38),
};
for (const name of Object.keys(bombs)) {
  aios.registerTool({ name, parameters: { type: 'object' } }, bombs[name]);
}
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => {
  // What the replacements must leave as it was.
  class Bytes extends Uint8Array {}
  const b = new Bytes(4);
  const u = Uint8Array.from([1, 2, 3]);
  const arr = Array(3);
  const two = new Array(1, 2);
  const mapped = [1, 2, 3].map((x) => x * 2);
  function sum(...xs: number[]) { return xs.reduce((a, x) => a + x, 0); }
  return {
    instanceOf: b instanceof Uint8Array && b instanceof Bytes && u instanceof Uint8Array && [] instanceof Array,
    ctorIsGlobal: [].constructor === Array && u.constructor === Uint8Array && new ArrayBuffer(1).constructor === ArrayBuffer,
    names: [Array.name, Uint8Array.name, String.prototype.repeat.name, Array.prototype.join.length],
    sizes: [b.length, u.length, arr.length, two.length, Uint8Array.BYTES_PER_ELEMENT, new Float64Array(new ArrayBuffer(16)).length],
    isArray: Array.isArray(arr) && Array.isArray(Array.of(1)) && !Array.isArray(u),
    strings: ['ab'.repeat(3), '7'.padStart(3, '0'), 'x'.padEnd(2), [1, [2, 3]].join('-'), String([1, 2])],
    splits: ['a,b,,c'.split(','), 'abc'.split(''), 'a-b-c'.split('-', 2), 'x'.repeat(2 ** 23).split('y').length, 'a1b2'.split(/\d/)],
    arrays: [mapped, Array.from('abc'), Array.from({ length: 2 }, (_, i) => i), [...[1, 2].keys()], [1, 2].concat([3], 4)],
    apply: [Math.max.apply(null, [1, 5, 2]), sum.apply(null, [1, 2, 3]), Reflect.apply(sum, null, [4, 5])],
    iterSame: Array.prototype[Symbol.iterator] === Array.prototype.values,
  };
});
`

func TestBuiltinSizeLimits(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20})
	p := loadSource(t, rt, "limits.ts", limitsProvider)
	env := newFakeEnv()
	for _, name := range []string{"repeat", "repeatLong", "padStart", "padEnd", "arrayBuffer", "uint8", "float64",
		"typedFromArrayLike", "subclassed", "viaConstructor", "viaPrototype", "newArray", "callArray",
		"arrayViaLiteral", "fill", "join", "spread", "spreadCall", "forOf", "joinSeparator", "spreadKeys", "fromKeys", "fromArrayLike", "map",
		"slice", "concat", "split", "splitSeparator", "apply", "reflectApply", "viaStaticsChain", "viaStaticsChainTyped"} {
		t.Run(name, func(t *testing.T) {
			_, err := call(t, p, env, name, map[string]any{}, 20*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			t.Log(te.Message)
			if strings.HasPrefix(name, "viaStaticsChain") {
				// What is above the replacement is not a constructor
				// of arrays or buffers (Function.prototype; the
				// abstract %TypedArray%, which refuses to construct).
				if !strings.Contains(te.Message, "TypeError") {
					t.Errorf("message %q: want a TypeError", te.Message)
				}
				return
			}
			if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "memory budget (64 MiB)") ||
				!strings.Contains(te.Message, "(at limits.ts:") {
				t.Errorf("message %q: want a RangeError naming the 64 MiB budget, at the provider's line", te.Message)
			}
		})
	}
	res, err := call(t, p, env, "ok", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := mustJSON(t, res)
	want := `{"apply":[5,6,9],"arrays":[[2,4,6],["a","b","c"],[0,1],[0,1],[1,2,3,4]],"ctorIsGlobal":true,"instanceOf":true,` +
		`"isArray":true,"iterSame":true,"names":["Array","Uint8Array","repeat",1],"sizes":[4,3,3,2,1,2],` +
		`"splits":[["a","b","","c"],["a","b","c"],["a","b"],1,["a","b",""]],"strings":["ababab","007","x ","1-2,3","1,2"]}`
	if got != want {
		t.Fatalf("built-ins changed:\n got %s\nwant %s", got, want)
	}
}

// TestBuiltinLimitFollowsProviderBudget: the limits use the provider's own
// budget (ProviderBudgets), set after the provider's id is known.
func TestBuiltinLimitFollowsProviderBudget(t *testing.T) {
	src := `aios.provider({ id: 'org.test.small' });
aios.registerTool({ name: 'alloc', parameters: { type: 'object' } }, (p: any) => new ArrayBuffer(p.n).byteLength);`
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, ProviderBudgets: map[string]int64{"org.test.small": 1 << 20}})
	p := loadSource(t, rt, "small.ts", src)
	env := newFakeEnv()
	if v, err := call(t, p, env, "alloc", map[string]any{"n": int64(512 << 10)}, 10*time.Second); err != nil || mustJSON(t, v) != "524288" {
		t.Fatalf("512 KiB: %v, %v", v, err)
	}
	_, err := call(t, p, env, "alloc", map[string]any{"n": int64(2 << 20)}, 10*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if !strings.Contains(te.Message, "memory budget (1 MiB)") {
		t.Fatalf("2 MiB under a 1 MiB budget: %q", te.Message)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := abi.JSON.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compilersProvider hands eval and the Function constructors source
// nesting brackets 600 000 levels deep: goja's parser would need ~1.2 GB
// of stack for it, past the 1 GB limit, and without the size check each
// call ended the whole test process with a fatal stack overflow (measured:
// eval of 500 000 '[' did). With it each is a RangeError.
const compilersProvider = `
const deep = '['.repeat(600000);
const getProto = Object.getPrototypeOf;
const bombs: Record<string, () => unknown> = {
  eval: () => eval(deep),
  indirectEval: () => (0, eval)(deep),
  newFunction: () => new Function('return ' + deep),
  callFunction: () => (Function as any)('a', deep),
  viaConstructor: () => new ((function () {}).constructor as any)(deep),
  asyncFunction: () => getProto(async function () {}).constructor(deep),
  generatorFunction: () => getProto(function* () {}).constructor(deep),
  toStringArgument: () => new Function({ toString() { return deep; } } as any),
};
for (const name of Object.keys(bombs)) {
  aios.registerTool({ name, parameters: { type: 'object' } }, bombs[name]);
}
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, async () => {
  const add = new Function('a', 'b', 'return a + b');
  const seven = (Function as any)('return 7');
  const af = getProto(async function () {}).constructor('return 8');
  const gf = getProto(function* () {}).constructor('yield 9');
  class Sub extends (Function as any) {}
  const f = function () {};
  const gp = Object.getPrototypeOf;
  return {
    compilerChain: gp(Function) === Function.prototype && gp(gp(async function () {}).constructor) === Function.prototype,
    eval: [eval('1 + 2'), eval(5), (0, eval)('typeof globalThis')],
    calls: [add(1, 2), seven(), await af(), gf().next().value, new (Sub as any)('return 10')()],
    identity: [f.constructor === Function, f instanceof Function, add instanceof Function, Function.prototype.constructor === Function,
      new (Sub as any)('') instanceof Sub],
    names: [Function.name, Function.length, eval.name, getProto(async function () {}).constructor.name],
    big: new Function('return ' + '1+'.repeat(1000) + '1')(),
  };
});
`

func TestRunTimeCompilers(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20})
	p := loadSource(t, rt, "compilers.ts", compilersProvider)
	env := newFakeEnv()
	for _, name := range []string{"eval", "indirectEval", "newFunction", "callFunction", "viaConstructor", "asyncFunction",
		"generatorFunction", "toStringArgument"} {
		t.Run(name, func(t *testing.T) {
			_, err := call(t, p, env, name, map[string]any{}, 20*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "characters of source: the sandbox compiles at most 262144 at run time") {
				t.Errorf("message %q: want a RangeError on the source size", te.Message)
			}
		})
	}
	res, err := call(t, p, env, "ok", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"big":1001,"calls":[3,7,8,9,10],"compilerChain":true,"eval":[3,5,"object"],"identity":[true,true,true,true,true],` +
		`"names":["Function",1,"eval","AsyncFunction"]}`
	if got := mustJSON(t, res); got != want {
		t.Fatalf("compilers changed:\n got %s\nwant %s", got, want)
	}
}
