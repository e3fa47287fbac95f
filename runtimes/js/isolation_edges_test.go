package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// patchedCompilersProvider patches what limits.js's Function replacement
// used to convert its arguments with (Array.prototype.map) and then hands the Function
// constructor a source longer than the sandbox compiles at run time, as an
// object whose toString returns it. A flat source is used here: a nested
// one of that length ('['.repeat(600000)) is a fatal stack overflow of the
// whole process in goja's parser, which is what the size check is for.
const patchedCompilersProvider = `
const long = 'return 1; //' + 'x'.repeat(300000);
const arg = { toString() { return long; } };
aios.registerTool({ name: 'patchedMap', parameters: { type: 'object' } }, () => {
  const map = Array.prototype.map;
  Array.prototype.map = function () { return this; };
  try { return new Function(arg)(); } finally { Array.prototype.map = map; }
});
aios.registerTool({ name: 'later', parameters: { type: 'object' } }, () => {
  // a later call of the same runtime: the patch of an earlier call stays
  Array.prototype.map = function () { return this; };
  return 0;
});
aios.registerTool({ name: 'afterPatch', parameters: { type: 'object' } }, () => new Function(arg)());
`

// TestPatchedBuiltinsKeepSourceLimit: limits.js's replacement of the
// Function constructors converted their arguments with args.map(...), a
// method of Array.prototype the provider can replace. A provider that
// replaced it (in the same call, or in an earlier call of the same pooled
// runtime) had its arguments reach the original constructor unconverted:
// the size check counts strings only, so an object whose toString returned
// any source passed it, and a deeply nested one ends the host process in
// goja's parser. The conversion is now done by the check itself, in Go,
// and the original compiles the strings the check counted.
func TestPatchedBuiltinsKeepSourceLimit(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, PoolSize: 1})
	p := loadSource(t, rt, "patched.js", patchedCompilersProvider)
	env := newFakeEnv()
	for _, name := range []string{"patchedMap", "later", "afterPatch"} {
		v, err := call(t, p, env, name, map[string]any{}, 20*time.Second)
		switch name {
		case "later":
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: the long source compiled (result %v), want the RangeError of the source size", name, v)
			continue
		}
		te := wantCode(t, err, abi.ProviderError)
		if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "characters of source: the sandbox compiles at most 262144 at run time") {
			t.Errorf("%s: message %q: want the RangeError of the source size", name, te.Message)
		}
	}
}

// twoFacedProvider asks the sized built-ins for 40-80 MB (over a 64 MiB
// budget: 32 Mi characters, 64 Mi bytes) through arguments whose
// conversion answers small the first time it runs and large after, or, for
// ArrayBuffer, through an object whose valueOf is the size.
const twoFacedProvider = `
function twoFaced(small, large) { let k = 0; return { valueOf() { return k++ ? large : small; }, toString() { return String(k++ ? large : small); } }; }
const tools = {
  repeat: () => 'x'.repeat(twoFaced(1, 40e6)).length,
  padStart: () => ''.padStart(twoFaced(1, 40e6)).length,
  joinSeparator: () => { let k = 0; return new Array(100).join({ toString() { return k++ ? 'x'.repeat(1e6) : ','; } }).length; },
  arrayBufferValueOf: () => new ArrayBuffer({ valueOf() { return 80e6; } }).byteLength,
  arrayBufferTwoFaced: () => new ArrayBuffer(twoFaced(1, 80e6)).byteLength,
  typedLengthGetter: () => { let k = 0; return new Float64Array({ get length() { return k++ ? 10e6 : 1; } }).length; },
};
for (const name of Object.keys(tools)) aios.registerTool({ name, parameters: { type: 'object' } }, tools[name]);
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => {
  let calls = 0;
  const n = { valueOf() { calls++; return 3; } };
  const lengths = { length: 2, 0: 7, 1: 8 };
  return ['ab'.repeat(n), 'x'.padStart(n, '-'), [1, 2].join({ toString() { return '+'; } }),
    new ArrayBuffer(n).byteLength, new Uint8Array(lengths).join(), 'a,b,c'.split(',', n).length, calls];
});
`

// TestSizeChecksConvertOnce: the size checks of the built-ins
// (limits.go) converted an object argument to a number (or a string) for
// the check, and the built-in converted it again, so an argument whose
// valueOf or toString answered small to the check and large to the
// built-in passed: an allocation of any size, a fatal error of the host
// process when larger than the machine's memory (in-process isolation).
// ArrayBuffer's object argument was sized by its length property, not by
// its valueOf, which is what the constructor reads. An object argument is
// now converted once, by the check, and the built-in gets the converted
// value (as a built-in converts it once); a typed array made from an
// array-like gets a view of it whose length is the one checked.
func TestSizeChecksConvertOnce(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, PoolSize: 1})
	p := loadSource(t, rt, "twofaced.js", twoFacedProvider)
	env := newFakeEnv()
	// The two-faced arguments are converted once: the built-in makes what
	// the check saw (small); the others are over the budget.
	for _, tc := range []struct {
		name string
		want any // nil: the RangeError of the budget
	}{
		{"repeat", int64(1)}, {"padStart", int64(1)}, {"joinSeparator", int64(99)},
		{"arrayBufferValueOf", nil}, {"arrayBufferTwoFaced", int64(1)}, {"typedLengthGetter", int64(1)},
	} {
		v, err := call(t, p, env, tc.name, map[string]any{}, 20*time.Second)
		switch {
		case tc.want != nil && err == nil && v == tc.want:
		case tc.want != nil:
			t.Errorf("%s: got %v, %v; want %v, what the size check saw", tc.name, v, err, tc.want)
		case err == nil:
			t.Errorf("%s: the built-in made %v (over the 64 MiB budget), want the RangeError of the budget", tc.name, v)
		case !strings.Contains(err.Error(), "RangeError") || !strings.Contains(err.Error(), "memory budget (64 MiB)"):
			t.Errorf("%s: %v: want the RangeError of the budget, before the allocation", tc.name, err)
		}
	}
	v, err := call(t, p, env, "ok", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, v), `["ababab","--x","1+2",3,"7,8",3,4]`; got != want {
		t.Errorf("ordinary uses: got %s, want %s (valueOf called once per conversion)", got, want)
	}
}

// TestArgumentListLengthReadOnce: the argument list of
// Function.prototype.apply, Reflect.apply and Reflect.construct was sized
// by one read of the array-like's length and built by the built-in after a
// second read, so a length getter answering 1 to the check and 5 000 000 to
// the built-in (80 MB of arguments, over the 64 MiB budget) passed: any
// length, an allocation that ends the host process when larger than the
// machine's memory. The built-in now gets a view of the array-like whose
// length is the one checked.
func TestArgumentListLengthReadOnce(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, PoolSize: 1})
	p := loadSource(t, rt, "arglist.js", `
function twoFaced() { let k = 0; return { get length() { return k++ ? 5e6 : 1; }, 0: 'a' }; }
function count() { return arguments.length; }
class C { constructor(...a) { this.n = a.length; } }
aios.registerTool({ name: 'lists', parameters: { type: 'object' } }, () =>
  [count.apply(null, twoFaced()), Reflect.apply(count, null, twoFaced()), Reflect.construct(C, twoFaced()).n,
   count.apply(null, ['x', 'y']), count.apply(null, { length: 3 }), Math.max.apply(null, { length: 2, 0: 4, 1: 9 })]);
`)
	v, err := call(t, p, newFakeEnv(), "lists", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatalf("lists: %v", err)
	}
	if got, want := mustJSON(t, v), `[1,1,1,2,3,9]`; got != want {
		t.Errorf("argument lists: got %s, want %s (the length the check read)", got, want)
	}
}

// TestReceiverLengthReadOnce: the array methods that build their
// result from a generic receiver (Array.prototype.join.call(o), slice,
// flat, toReversed, toSorted, toSpliced, with, toLocaleString) were sized
// by one read of o.length, and the built-in read it again: a length getter
// answering 1 to the check and millions to the built-in passed, an
// allocation of any size in one native call. The built-in now gets a view
// of o whose length is the one checked (the methods that hand the receiver
// to a callback, map and flatMap, or write to it, fill, sort…, keep the
// receiver and are not covered: docs/js.md).
func TestReceiverLengthReadOnce(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, PoolSize: 1})
	p := loadSource(t, rt, "receiver.js", `
function twoFaced(large) { let k = 0; return { get length() { return k++ ? large : 1; }, 0: 'a' }; }
const A = Array.prototype;
aios.registerTool({ name: 'receivers', parameters: { type: 'object' } }, () => [
  A.join.call(twoFaced(4e7)).length, A.slice.call(twoFaced(6e6)).length, A.flat.call(twoFaced(6e6)).length,
  A.toReversed.call(twoFaced(6e6)).length, A.toSorted.call(twoFaced(6e6)).length, A.toSpliced.call(twoFaced(6e6), 0, 0).length,
  A.with.call(twoFaced(6e6), 0, 'b').length, A.toLocaleString.call(twoFaced(4e7)).length,
  A.join.call({ length: 3, 0: 'x', 2: 'z' }, '-'), A.slice.call({ length: 2, 0: 1, 1: 2 }), A.join.call(new Uint8Array([1, 2]))]);
`)
	v, err := call(t, p, newFakeEnv(), "receivers", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatalf("receivers: %v", err)
	}
	if got, want := mustJSON(t, v), `[1,1,1,1,1,1,1,1,"x--z",[1,2],"1,2"]`; got != want {
		t.Errorf("generic receivers: got %s, want %s (the length the check read)", got, want)
	}
}
