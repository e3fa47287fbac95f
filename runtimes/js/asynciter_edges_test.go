package js

import (
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSymbolAsyncIterator: goja has no Symbol.asyncIterator (ES2018,
// declared by aios-sdk.d.ts's lib), so a TS author's async-iterable object
// or class got the key "undefined" and for await over it failed "Object has
// no member 'Symbol.iterator'"; it is defined, a symbol that esbuild's
// lowered for await and async generators use too, in process and in a
// worker process, from a .ts file as from a .js one.
func TestSymbolAsyncIterator(t *testing.T) {
	const src = `
class Pages {
  constructor(n) { this.n = n; this.i = 0; }
  [Symbol.asyncIterator]() { return this; }
  async next() { return this.i < this.n ? { value: ++this.i, done: false } : { value: undefined, done: true }; }
}
aios.registerTool({ name: 'iter' }, async () => {
  const o = { async *[Symbol.asyncIterator]() { yield 1; yield 2; } };
  async function* gen() { yield 10; }
  let a = 0, b = 0, c = 0;
  for await (const x of o) a += x;
  for await (const x of new Pages(3)) b += x;
  for await (const x of gen()) c += x;
  const d = Object.getOwnPropertyDescriptor(Symbol, 'asyncIterator');
  return {
    a, b, c,
    kind: typeof Symbol.asyncIterator,
    genHas: typeof gen()[Symbol.asyncIterator],
    keys: Object.keys({ [Symbol.asyncIterator]: 1 }).length,
    fixed: !d.writable && !d.enumerable && !d.configurable,
    text: String(Symbol.asyncIterator),
  };
});
`
	want := map[string]any{"a": int64(3), "b": int64(6), "c": int64(10), "kind": "symbol", "genHas": "function",
		"keys": int64(0), "fixed": true, "text": "Symbol(Symbol.asyncIterator)"}
	for _, iso := range []string{IsolationInProcess, IsolationInProcess + "-ts", IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			var p abi.Provider
			if iso == IsolationInProcess+"-ts" {
				p = loadSource(t, newRuntime(t, Options{}), "iter.ts", src)
			} else if iso == IsolationProcess {
				p = loadIsolated(t, Options{}, src)
			} else {
				p = loadSource(t, newRuntime(t, Options{}), "iter.js", src)
			}
			got, err := callIsolated(t, p, newFakeEnv(), "iter", map[string]any{}, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
