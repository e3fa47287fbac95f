package js

import (
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestToolErrorUnderFrozenIntrinsics: a provider that hardens its
// runtime (Object.freeze(Error.prototype), as lockdown-style code does, in
// this call or an earlier one of the pooled runtime) could no longer make
// an aios.ToolError: its constructor assigned this.name, which the frozen
// Error.prototype's read-only name refuses in strict code, so
// throw new aios.ToolError('NotFound', …) failed ProviderError "TypeError:
// Cannot assign to read only property 'name'", and every host refusal
// reached the handler as a plain Error (e instanceof aios.ToolError false).
// The constructor defines its own properties instead.
func TestToolErrorUnderFrozenIntrinsics(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1, Isolation: IsolationInProcess})
	p := loadSource(t, rt, "hardened.js", `
aios.registerTool({name: "harden"}, () => {
  for (const o of [Object.prototype, Error.prototype, Function.prototype, Array.prototype]) Object.freeze(o);
  return Object.isFrozen(Error.prototype);
});
aios.registerTool({name: "throws"}, () => { throw new aios.ToolError(aios.ToolError.NotFound, "no such order", {id: 7}); });
aios.registerTool({name: "refused"}, async (params, ctx) => {
  try { await ctx.callTool("missing", {}); } catch (e) {
    return {isToolError: e instanceof aios.ToolError, name: e.name, code: e.code, keys: Object.keys(e)};
  }
});
`)
	env := newFakeEnv()
	for _, step := range []string{"before", "after"} {
		if step == "after" {
			if v, err := call(t, p, env, "harden", map[string]any{}, 5*time.Second); err != nil || v != true {
				t.Fatalf("harden: %v %v", v, err)
			}
		}
		_, err := call(t, p, env, "throws", map[string]any{}, 5*time.Second)
		te, ok := err.(*abi.ToolError)
		if !ok || te.Code != abi.NotFound || te.Message != "no such order" || !reflect.DeepEqual(te.Data, map[string]any{"id": int64(7)}) {
			t.Errorf("%s hardening: throw new aios.ToolError gave %v, want NotFound 'no such order' with its data", step, err)
		}
		v, err := call(t, p, env, "refused", map[string]any{}, 5*time.Second)
		want := map[string]any{"isToolError": true, "name": "ToolError", "code": "NotFound", "keys": []any{"name", "code"}}
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("%s hardening: a host refusal caught as %v (%v), want %v", step, v, err, want)
		}
	}
}
