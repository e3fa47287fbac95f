package js

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestThenableResultAwaited: a handler may return a promise, and a
// promise-like object (a thenable: a bundled library's deferred or query
// builder, anything with a then method) is one to await, await and
// Promise.resolve: it was exported as a value and failed "$.then: a
// function is not a JSON value", the call's outcome never awaited. It is
// settled as a promise is: its value is the result, its rejection the
// error, and a then that throws fails the call with what it threw.
func TestThenableResultAwaited(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			path := writeSource(t, "deferred.js", `
const later = (settle) => ({ then(resolve, reject) { setTimeout(() => settle(resolve, reject), 1); } });
aios.registerTool({ name: 'ok', parameters: {} }, () => later((resolve) => resolve({ rows: [1, 2] })));
aios.registerTool({ name: 'nested', parameters: {} }, () => ({ then(resolve) { resolve(later((r) => r('inner'))); } }));
aios.registerTool({ name: 'rejects', parameters: {} }, () => later((_, reject) => reject(new RangeError('no rows'))));
aios.registerTool({ name: 'throws', parameters: {} }, () => ({ then() { throw new TypeError('bad then'); } }));
aios.registerTool({ name: 'plain', parameters: {} }, () => ({ then: 1 }));
aios.registerTool({ name: 'builder', parameters: {} }, () => ({ where() { return this; }, then() { return this; } }));
`)
			p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			call := func(tool string) (any, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				return p.Call(ctx, &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}}, newFakeEnv())
			}
			for tool, want := range map[string]any{
				"ok":     map[string]any{"rows": []any{int64(1), int64(2)}},
				"nested": "inner",
				"plain":  map[string]any{"then": int64(1)},
			} {
				got, err := call(tool)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: got %#v, %v; want %#v", tool, got, err, want)
				}
			}
			for tool, want := range map[string]string{
				"rejects": "RangeError: no rows (at deferred.js:5:",
				"throws":  "TypeError: bad then (at deferred.js:6:",
			} {
				_, err := call(tool)
				if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: got %v; want ProviderError %q", tool, err, want)
				}
			}
			// A then that never calls resolve (a fluent builder's) waits,
			// as await would, and its deadline says why.
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err = p.Call(ctx, &abi.ToolCall{ID: "c2", Tool: "builder", Params: map[string]any{}}, newFakeEnv())
			if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "returned a thenable (an object with a then method)") {
				t.Errorf("builder: got %v; want Timeout saying its then never called resolve", err)
			}
		})
	}
}
