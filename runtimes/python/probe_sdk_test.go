package python_test

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool that forgets to await a ctx service (return ctx.call_tool(...)) or
// returns an un-awaited coroutine got InvalidResult "Object of type HostOp
// is not JSON serializable" / "… coroutine …": nothing says what went
// wrong, where the JS SDK says "a Promise is not a JSON value (missing
// await?)". Both wire formats.
func TestProbeMissingAwaitNamed(t *testing.T) {
	for _, wf := range []string{"json", "msgpack"} {
		t.Run(wf, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "noawait.py", `
from aios_sdk import provider, tool, Capability
provider(id="org.test.noawait", capabilities=[Capability.CallTool("*")])

@tool(name="ok")
def ok(params):
    return {"ok": True}

async def helper():
    return 1

@tool(name="hostop")
async def hostop(params, ctx):
    return {"r": ctx.call_tool("ok", {})}

@tool(name="coro")
def coro(params):
    return [1, helper()]
`)
			for _, c := range []struct{ tool, want string }{
				{"hostop", "$.r"},
				{"coro", "$[1]"},
			} {
				_, err := call(h, c.tool, map[string]any{}, 0)
				wantCode(t, err, abi.InvalidResult, "tool "+c.tool, c.want, "missing await?")
			}
			stillServes(t, h, "an un-awaited result")
		})
	}
}
