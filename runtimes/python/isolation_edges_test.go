package python_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// keeperPy keeps the ctx of the call that ran "keep" in a module global,
// and "use" tries to act with it in a later call, in three ways: the kept
// ctx itself, a forged ctx (the current call's with the kept call's id),
// and a thread started by the earlier call that reads once the later call
// runs.
const keeperPy = `
import threading, time
from aios_sdk import tool, provider, Capability

provider(id="org.example.keeper", version="1.0.0", capabilities=[Capability.ReadSpace("documents")])
kept = {}

def err(e):
    return "%s %s" % (getattr(e, "code", type(e).__name__), e)

@tool
async def keep(params, ctx):
    kept["ctx"] = ctx
    kept["thread"] = None
    def later():
        # waits for the next call, then reads with the kept ctx
        while kept.get("go") is None:
            time.sleep(0.005)
        try:
            kept["ctx"].spaces.read(params["id"], "documents").wait()
            kept["thread"] = "read"
        except Exception as e:
            kept["thread"] = err(e)
    threading.Thread(target=later, daemon=True).start()
    return "kept"

@tool
async def use(params, ctx):
    out = {}
    try:
        await kept["ctx"].spaces.read(params["id"], "documents")
        out["kept"] = "read"
    except Exception as e:
        out["kept"] = err(e)
    ctx.call_id = kept["ctx"].call_id
    try:
        await ctx.spaces.read(params["id"], "documents")
        out["forged"] = "read"
    except Exception as e:
        out["forged"] = err(e)
    kept["go"] = True
    for _ in range(2000):
        if kept["thread"] is not None:
            break
        time.sleep(0.005)
    out["thread"] = kept["thread"]
    return out
`

// TestKeptCtxActsWithNoOtherCallsGrants: a Python tool that keeps the
// ctx of a call by an agent holding ReadSpace(documents), and uses it (or
// its call id, or a thread of that call) in a later call by an agent that
// does not hold it, on the same pooled worker, reads nothing: the host
// answers only host calls naming the call the worker serves, and that call
// is the later caller's (guard test, no defect).
func TestKeptCtxActsWithNoOtherCallsGrants(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "keeper.py", keeperPy)
	id, err := h.Spaces().Put("documents", []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"id": id}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: "keep", Params: params}); err != nil {
		t.Fatal(err)
	}
	v, err := h.Call(ctx, &abi.ToolCall{Caller: "nobody", Tool: "use", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	t.Logf("%v", m)
	for _, k := range []string{"kept", "forged", "thread"} {
		s, _ := m[k].(string)
		if s == "read" || !strings.HasPrefix(s, "InvalidRequest") {
			t.Errorf("%s: a later call by \"nobody\" got %q, want InvalidRequest (the earlier call is over)", k, s)
		}
		// The tool author is told why: the message named a host_call
		// id and "a call this worker is not serving", nothing about the
		// ctx kept from an ended call.
		if !strings.Contains(s, "has ended") || !strings.Contains(s, "use the ctx the current call received") {
			t.Errorf("%s: %q does not say the kept ctx's call has ended and to use the current call's ctx", k, s)
		}
	}
}
