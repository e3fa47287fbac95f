package js

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorResultRefused: a handler that returned an Error instead of
// throwing it (`catch (e) { return e; }`, `return new Error('…')`), or put
// one or a RegExp in its result, succeeded with {} in its place: an
// Error's name, message and stack and a RegExp's pattern are not own
// enumerable properties, so by JSON.stringify's rules nothing of them was
// left, and the failure was reported as a success (found by p139). They
// are now InvalidResult errors naming their path and what to do, as a
// Map, a DataView or an iterator are (and as a Python tool returning an
// exception fails); a class instance and a plain object are unchanged.
func TestErrorResultRefused(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "er.js", `aios.provider({ id: 'org.test.er' });
aios.registerTool({ name: 'top', parameters: {} }, () => { try { null.x; } catch (e) { return e; } });
aios.registerTool({ name: 'nested', parameters: {} }, () => ({ a: [1, { err: new aios.ToolError('NotFound', 'gone') }] }));
aios.registerTool({ name: 'coded', parameters: {} }, () => ({ e: Object.assign(new Error('no such file'), { code: 'ENOENT' }) }));
aios.registerTool({ name: 'regexp', parameters: {} }, () => ({ r: /ab+c/gi }));
aios.registerTool({ name: 'fine', parameters: {} }, () => ({ o: {}, c: new (class C { constructor() { this.x = 1; } })() }));
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			do := func(tool string) (any, error) {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
				env.call = c
				return p.Call(context.Background(), c, env)
			}
			for tool, want := range map[string]string{
				"top":    "$: an Error (TypeError) is not a JSON value",
				"nested": "$.a[1].err: an Error (ToolError) is not a JSON value",
				"coded":  "$.e: an Error (Error) is not a JSON value",
				"regexp": "$.r: a RegExp is not a JSON value",
			} {
				got, err := do(tool)
				if err == nil {
					t.Errorf("%s: result %#v, want InvalidResult %q", tool, got, want)
					continue
				}
				if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, want) {
					t.Errorf("%s: %q, want it to contain %q", tool, te.Message, want)
				}
			}
			got, err := do("fine")
			want := map[string]any{"o": map[string]any{}, "c": map[string]any{"x": int64(1)}}
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("fine: %#v %v, want %#v", got, err, want)
			}
		})
	}
}
