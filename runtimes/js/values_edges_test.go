package js

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLoneSurrogateKey: a property whose key holds a lone surrogate
// (half of a UTF-16 pair, which has no UTF-8 form) was dropped without a
// word from a result and from ctx.callTool params — goja's Keys gives the
// key with U+FFFD, under which Get finds nothing. Such a key is refused,
// naming its path, in both isolation modes; a real U+FFFD key is kept.
func TestLoneSurrogateKey(t *testing.T) {
	const src = `
aios.registerTool({ name: 'result' }, () => ({ k: { ["a\udc00"]: 1, x: 2 } }));
aios.registerTool({ name: 'two' }, () => ({ ["\ud800"]: 1, ["\udc00"]: 2 }));
aios.registerTool({ name: 'shadow' }, () => ({ ["\ufffd"]: 1, ["\ud800"]: 2 }));
aios.registerTool({ name: 'fffd' }, () => ({ ["\ufffd"]: 1, y: undefined }));
aios.registerTool({ name: 'call' }, async (p, ctx) => ctx.callTool('x', { ["\udc00"]: 1, y: 2 }));
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			var p abi.Provider
			if iso == IsolationProcess {
				p = loadIsolated(t, Options{}, src)
			} else {
				p = loadSource(t, newRuntime(t, Options{}), "lone.js", src)
			}
			env := newFakeEnv()
			called := false
			env.tools["x"] = func(_ context.Context, params any) (any, error) { called = true; return params, nil }
			for _, tc := range []struct{ tool, path string }{
				{"result", "$.k.a\ufffd"}, {"two", "$.\ufffd"}, {"shadow", "$.\ufffd"},
			} {
				got, err := callIsolated(t, p, env, tc.tool, map[string]any{}, 5*time.Second)
				if err == nil {
					t.Errorf("%s returned %#v: a key with a lone surrogate was dropped without an error", tc.tool, got)
					continue
				}
				te := wantCode(t, err, abi.InvalidResult)
				if !strings.Contains(te.Message, tc.path+": ") || !strings.Contains(te.Message, "lone surrogate") {
					t.Errorf("%s: the error does not name the key's path %s and the lone surrogate: %s", tc.tool, tc.path, te.Message)
				}
			}
			got, err := callIsolated(t, p, env, "fffd", map[string]any{}, 5*time.Second)
			if err != nil || !reflect.DeepEqual(got, map[string]any{"\ufffd": int64(1)}) {
				t.Errorf("a real U+FFFD key: %#v, %v", got, err)
			}
			got, err = callIsolated(t, p, env, "call", map[string]any{}, 5*time.Second)
			if err == nil {
				t.Errorf("ctx.callTool params with a lone-surrogate key were sent as %#v (called %v)", got, called)
			} else if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "lone surrogate") {
				t.Errorf("ctx.callTool: %s", te.Message)
			}
			if called {
				t.Errorf("the tool was called with the key dropped")
			}
		})
	}
}

// TestJSONWireBigWholeFloats: a float64 from 2^53 up to 1e21 crosses
// the worker protocol as a float in both wire formats. encoding/json wrote
// 2^60 as 1152921504606847000, which the other end read as an exact
// integer: under runtimes.js.wire: json the handler saw a BigInt
// (typeof 'bigint', so p.f * 2 threw) where MessagePack and in-process
// give a number, and a JS number 2^60 came back as int64
// 1152921504606847000 instead of float64 2^60.
func TestJSONWireBigWholeFloats(t *testing.T) {
	const src = `
aios.registerTool({ name: 'kinds' }, (p) => ({ f: typeof p.f, g: typeof p.g, n: typeof p.n, twice: p.f * 2, f2: p.f2 }));
aios.registerTool({ name: 'make' }, () => ({ a: 2 ** 60, b: -(2 ** 63), c: 2 ** 53 + 2 }));
`
	params := map[string]any{"f": float64(1 << 60), "g": -float64(1 << 63), "n": int64(1<<53 + 1), "f2": []any{1e20, float64(1 << 53)}}
	want := map[string]any{"f": "number", "g": "number", "n": "bigint", "twice": float64(1 << 61), "f2": []any{1e20, float64(1 << 53)}}
	wantMade := map[string]any{"a": float64(1 << 60), "b": -float64(1 << 63), "c": float64(1<<53 + 2)}
	for _, w := range []string{"msgpack", "json"} {
		p := loadIsolated(t, Options{Wire: w}, src)
		got, err := callIsolated(t, p, newFakeEnv(), "kinds", params, 10*time.Second)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("wire %s: the handler saw %#v (%v), want %#v", w, got, err, want)
		}
		got, err = callIsolated(t, p, newFakeEnv(), "make", map[string]any{}, 10*time.Second)
		if err != nil || !reflect.DeepEqual(got, wantMade) {
			t.Errorf("wire %s: results %#v (%v), want %#v", w, got, err, wantMade)
		}
	}
}

// TestDeepCallToolParamsProcess: ctx.callTool params nested as deep
// as a value may be (512 levels, the params being level 0) are sent in a
// worker process as in-process. The host counted the levels of the host
// call's arguments ({tool, params}) from the arguments, one level above
// the params, refused the frame and killed the worker (ProviderCrashed:
// "bad frame from the JS worker process: … nested deeper than 512
// levels") for params it takes from an in-process runtime.
func TestDeepCallToolParamsProcess(t *testing.T) {
	const src = `aios.registerTool({ name: 'nest' }, async (p, ctx) => { let v = 'leaf'; for (let i = 0; i < p.n; i++) v = [v]; return ctx.callTool('x', { value: v }); });`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			var p abi.Provider
			if iso == IsolationProcess {
				p = loadIsolated(t, Options{}, src)
			} else {
				p = loadSource(t, newRuntime(t, Options{}), "deep.js", src)
			}
			env := newFakeEnv()
			env.tools["x"] = func(_ context.Context, params any) (any, error) { return "ok", nil }
			for _, n := range []int64{510, 511} {
				got, err := callIsolated(t, p, env, "nest", map[string]any{"n": n}, 10*time.Second)
				if err != nil || got != "ok" {
					msg := fmt.Sprint(err)
					if len(msg) > 300 {
						msg = msg[:150] + "…" + msg[len(msg)-150:]
					}
					t.Errorf("params.value %d levels deep: %v, %s", n, got, msg)
				}
			}
			_, err := callIsolated(t, p, env, "nest", map[string]any{"n": int64(512)}, 10*time.Second)
			if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "nested deeper than 512 levels") {
				t.Errorf("params 513 levels deep: %s", te.Message)
			}
		})
	}
}
