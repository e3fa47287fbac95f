package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestExoticThrownValues: a tool that threw (or rejected with) a
// revoked Proxy, or an Error whose name is a Symbol, failed with
// ProviderCrashed "JS runtime panicked: TypeError: Proxy already revoked"
// and its runtime was dropped as if goja had crashed: reading the value
// raised goja's own TypeError outside any JS frame. It is ProviderError
// saying the value thrown could not be read and why; the runtime serves on.
func TestExoticThrownValues(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1, Isolation: IsolationInProcess})
	p := loadSource(t, rt, "exotic.js", `
let calls = 0;
const cases = {
  revoked: () => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; },
  revokedError: () => { const r = Proxy.revocable(new Error("x"), {}); r.revoke(); return r.proxy; },
  symbolName: () => { const e = new Error("bad input"); e.name = Symbol("Mine"); return e; },
  revokedCause: () => { const r = Proxy.revocable({}, {}); r.revoke(); return new Error("outer", { cause: r.proxy }); },
};
for (const k of Object.keys(cases)) {
  aios.registerTool({name: k}, () => { calls++; throw cases[k](); });
  aios.registerTool({name: k + "-async"}, async () => { calls++; await null; throw cases[k](); });
}
aios.registerTool({name: "calls"}, () => calls);
`)
	wantWhy := map[string]string{
		"revoked":      "revoked",
		"revokedError": "revoked",
		"symbolName":   "Symbol",
		"revokedCause": "revoked",
	}
	n := int64(0)
	for _, k := range []string{"revoked", "revokedError", "symbolName", "revokedCause"} {
		for _, tool := range []string{k, k + "-async"} {
			n++
			_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 5*time.Second)
			te, ok := err.(*abi.ToolError)
			if !ok || te.Code != abi.ProviderError || strings.Contains(te.Message, "panicked") ||
				!strings.Contains(te.Message, "could not be read") || !strings.Contains(te.Message, wantWhy[k]) {
				t.Errorf("%s: %v; want ProviderError saying the value thrown could not be read (%s)", tool, err, wantWhy[k])
			}
		}
	}
	// The same runtime served every call: none was dropped as crashed.
	if v, err := call(t, p, newFakeEnv(), "calls", map[string]any{}, 5*time.Second); err != nil || v != n {
		t.Errorf("calls = %v (%v), want %d: a runtime was dropped", v, err, n)
	}
}
