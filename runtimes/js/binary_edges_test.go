package js

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestDataViewResultRefused: a typed array or ArrayBuffer in a result is
// InvalidResult naming its path ("store it with ctx.spaces.write"), but a
// DataView — the third way to hold bytes — became {}, its bytes lost
// without a word (goja sees an object without properties), in a result
// and in ctx.callTool params alike. It is now refused the same way, in
// both isolations; empty objects and class instances still give {}.
func TestDataViewResultRefused(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "dv.js", `aios.provider({ id: 'org.test.dv' });
const dv = () => new DataView(new Uint8Array([1, 2, 3]).buffer);
aios.registerTool({ name: 'top', parameters: {} }, () => dv());
aios.registerTool({ name: 'nested', parameters: {} }, () => ({ a: [1, { bytes: dv() }] }));
aios.registerTool({ name: 'param', parameters: {} }, async (p, ctx) => ctx.callTool('echo', { d: dv() }));
aios.registerTool({ name: 'empty', parameters: {} }, () => ({ o: {}, c: new (class C {})(), t: { [Symbol.toStringTag]: 'Other' } }));
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			env.tools["echo"] = func(_ context.Context, params any) (any, error) { return params, nil }
			do := func(tool string) (any, error) {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
				env.call = c
				return p.Call(context.Background(), c, env)
			}
			for tool, path := range map[string]string{"top": "$: ", "nested": "$.a[1].bytes: "} {
				got, err := do(tool)
				if err == nil {
					t.Errorf("%s: result %#v, want InvalidResult naming the DataView", tool, got)
					continue
				}
				if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, path+"binary data (DataView) is not a JSON value") || !strings.Contains(te.Message, "ctx.spaces.write") {
					t.Errorf("%s: %q, want the path %q and what to do", tool, te.Message, path)
				}
			}
			if got, err := do("param"); err == nil || !strings.Contains(err.Error(), "$.d: binary data (DataView)") {
				t.Errorf("param: %#v %v, want an error naming $.d and the DataView", got, err)
			}
			got, err := do("empty")
			want := map[string]any{"o": map[string]any{}, "c": map[string]any{}, "t": map[string]any{}}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("empty: %#v %v, want %#v", got, err, want)
			}
		})
	}
}

// TestIteratorResultRefused: a handler written as a generator function
// (function* yielding its results), or one returning arr.values() or
// map.keys() where an array was meant, gave {} — the values lost without
// a word (JSON.stringify's rule, which this runtime does not follow for a
// Map or a Promise either). Such a result is now InvalidResult naming its
// path and saying to make an array of it, in both isolations.
func TestIteratorResultRefused(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "iter.js", `aios.provider({ id: 'org.test.iter' });
aios.registerTool({ name: 'generator', parameters: {} }, function* () { yield 1; yield 2; });
aios.registerTool({ name: 'values', parameters: {} }, () => ({ list: [1, 2].values() }));
aios.registerTool({ name: 'keys', parameters: {} }, () => [new Map([['a', 1]]).keys()]);
aios.registerTool({ name: 'spread', parameters: {} }, () => [...new Map([['a', 1]]).keys()]);
aios.registerTool({ name: 'nextOnly', parameters: {} }, () => { class C { next() { return 1; } }; return new C(); });
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			do := func(tool string) (any, error) {
				return p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, newFakeEnv())
			}
			for tool, path := range map[string]string{"generator": "$: ", "values": "$.list: ", "keys": "$[0]: "} {
				got, err := do(tool)
				if err == nil {
					t.Errorf("%s: result %#v, want InvalidResult naming the iterator", tool, got)
					continue
				}
				if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, path+"an iterator") || !strings.Contains(te.Message, "[...it]") {
					t.Errorf("%s: %q, want the path %q and what to do", tool, te.Message, path)
				}
			}
			if got, err := do("spread"); err != nil || !reflect.DeepEqual(got, []any{"a"}) {
				t.Errorf("spread: %#v %v", got, err)
			}
			if got, err := do("nextOnly"); err != nil || !reflect.DeepEqual(got, map[string]any{}) {
				t.Errorf("an object with next but not iterable: %#v %v, want {}", got, err)
			}
		})
	}
}

// TestAsyncIteratorResultNamed: an async generator's handler (async
// function* yielding results; esbuild lowers it to an object with next,
// throw and return) failed "$.next: a function is not a JSON value",
// which says nothing of the generator. It now says an async iterator is
// not a JSON value and how to collect it; an object with a next function
// that is not async-iterable keeps the function's error.
func TestAsyncIteratorResultNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "agen.js", `aios.provider({ id: 'org.test.agen' });
aios.registerTool({ name: 'agen', parameters: {} }, async function* () { yield 1; });
aios.registerTool({ name: 'nested', parameters: {} }, () => ({ items: (async function* () { yield 1; })() }));
aios.registerTool({ name: 'plain', parameters: {} }, () => ({ next() { return 1; } }));
`)
	for tool, want := range map[string]string{
		"agen":   "$: an async iterator (an async generator's) is not a JSON value",
		"nested": "$.items: an async iterator",
		"plain":  "$.next: a function is not a JSON value",
	} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 30*time.Second)
		if err == nil {
			t.Errorf("%s: succeeded, want %q", tool, want)
			continue
		}
		if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, want) {
			t.Errorf("%s: %q, want %q", tool, te.Message, want)
		}
	}
}
