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

// @Agent without parentheses (as the SDK's bare @tool works) turned the
// class into an Agent options object: the load failed with "registers no
// tools: decorate … methods of an @Agent(...) class", not naming the
// missing parentheses. The JS SDK takes a bare @Agent too.
func TestProbeBareAgent(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "bare_agent.py", `
from aios_sdk import Agent, tool

@Agent
class Greeter:
    """Says hello."""
    def __init__(self):
        self.greeting = "hi"

    @tool
    def hello(self, params):
        return {"msg": self.greeting + " " + params.get("name", "")}

    @tool(name="ok")
    def ok(self, params):
        return {"ok": True}
`)
	if d := p.Describe(); d.Provider.Name != "Greeter" || d.Provider.Description != "Says hello." || d.Provider.ID != "local.bare-agent" {
		t.Fatalf("provider %+v", d.Provider)
	}
	v, err := call(h, "hello", map[string]any{"name": "ann"}, 0)
	if err != nil || v.(map[string]any)["msg"] != "hi ann" {
		t.Fatalf("%#v %v", v, err)
	}
	stillServes(t, h, "a bare @Agent")
}
