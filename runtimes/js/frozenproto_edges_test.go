package js

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestParamsKeysUnderFrozenPrototype: params, ctx.callTool results and
// a host error's data were built by assigning each key, so a key that
// Object.prototype holds read-only (a provider hardened with
// Object.freeze(Object.prototype), in this call or an earlier one of the
// runtime) was dropped without a word (params.constructor, params.toString
// undefined: the handler saw other params than the caller's), and a
// setter Object.prototype holds ran with the value instead of the key
// becoming the object's own (ctx.call's caller too). Each key is defined as an own data property,
// as JSON.parse makes them.
func TestParamsKeysUnderFrozenPrototype(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1, Isolation: IsolationInProcess})
	p := loadSource(t, rt, "hardened.js", `
let setterRan = 0;
aios.registerTool({name: "harden"}, () => {
  for (const k of ["token", "caller"]) {
    Object.defineProperty(Object.prototype, k, { set(v) { setterRan++; }, get() { return undefined; }, configurable: false });
  }
  Object.freeze(Object.prototype);
  return Object.isFrozen(Object.prototype);
});
// (the object returned is built with defineProperty: an assignment
// out.toString = … is dropped under the frozen prototype too)
function own(o) {
  const out = {};
  for (const k of ["constructor", "toString", "valueOf", "hasOwnProperty", "token", "a"]) {
    const v = Object.prototype.hasOwnProperty.call(o, k) ? o[k] : "(not own)";
    Object.defineProperty(out, k, { value: v, enumerable: true });
  }
  return out;
}
aios.registerTool({name: "echo"}, (params) => [own(params), setterRan]);
aios.registerTool({name: "info"}, (params, ctx) => { const c = ctx.call; return [c.caller, c.tool, setterRan]; });
aios.registerTool({name: "nested"}, async (params, ctx) => own(await ctx.callTool("give", {})));
aios.registerTool({name: "errdata"}, async (params, ctx) => {
  try { await ctx.callTool("fail", {}); } catch (e) { return own(e.data); }
});
`)
	keys := map[string]any{"constructor": "c", "toString": "s", "valueOf": int64(1), "hasOwnProperty": true, "token": "t", "a": "x"}
	env := newFakeEnv()
	env.tools["give"] = func(context.Context, any) (any, error) { return keys, nil }
	env.tools["fail"] = func(context.Context, any) (any, error) {
		return nil, &abi.ToolError{Code: abi.Conflict, Message: "no", Data: keys}
	}
	if v, err := call(t, p, env, "harden", map[string]any{}, 5*time.Second); err != nil || v != true {
		t.Fatalf("harden: %v %v", v, err)
	}
	v, err := call(t, p, env, "echo", keys, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := v.([]any)
	if !reflect.DeepEqual(r[0], keys) {
		t.Errorf("params seen by the handler: %v, want the caller's %v", r[0], keys)
	}
	if r[1] != int64(0) {
		t.Errorf("a setter of Object.prototype ran %v times with a key of the params", r[1])
	}
	c := &abi.ToolCall{ID: "c2", Caller: "agent-b", Tool: "info", Params: map[string]any{}}
	env.call = c
	if v, err := p.Call(context.Background(), c, env); err != nil || !reflect.DeepEqual(v, []any{"agent-b", "info", int64(0)}) {
		t.Errorf("ctx.call's caller, tool and the setter's runs: %v (%v), want [agent-b info 0]", v, err)
	}
	for _, tool := range []string{"nested", "errdata"} {
		v, err := call(t, p, env, tool, map[string]any{}, 5*time.Second)
		if err != nil || !reflect.DeepEqual(v, keys) {
			t.Errorf("%s: the handler saw %v (%v), want %v", tool, v, err, keys)
		}
	}
}
