package python_test

import (
	"testing"
)

// docs/python.md: "ctx (every method returns an awaitable; in a plain def
// tool call .wait() on it …)". ctx.log returned an already-done awaitable
// without .wait(), so a plain def tool following the docs,
// ctx.log("x").wait(), failed with "AttributeError: 'Done' object has no
// attribute 'wait'".
func TestProbeLogWaitInPlainTool(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "logwait.py", `from aios_sdk import tool

@tool
def logwait(params, ctx):
    r = ctx.log("from a plain tool").wait()
    return {"r": r}

@tool
def ok(params):
    return {"ok": True}
`)
	got, err := call(h, "logwait", map[string]any{}, 0)
	if err != nil {
		t.Fatalf("ctx.log(...).wait() in a plain def tool: %v", err)
	}
	if m, _ := got.(map[string]any); m == nil || m["r"] != nil {
		t.Fatalf("logwait returned %#v, want {r: None}", got)
	}
	stillServes(t, h, "logwait")
}
