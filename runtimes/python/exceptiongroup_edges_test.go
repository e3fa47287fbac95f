package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestExceptionGroupNamesItsExceptions: a tool whose asyncio.TaskGroup
// (docs/python.md: "TaskGroup.create_task" of ctx calls works) had a task
// fail answered "ExceptionGroup: unhandled errors in a TaskGroup (1
// sub-exception) (at tg.py:11)": neither the failed nested call's code and
// message nor the exception of a task of the tool's own, nor its line, was
// anywhere in the error, where Python's traceback prints each. The message
// now names each sub-exception with its type, message and line in the
// tool's folder.
func TestExceptionGroupNamesItsExceptions(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "tg.py", `import asyncio
from aios_sdk import Capability, provider, tool
provider(capabilities=[Capability.CallTool("boom")])

async def parse(text):
    await asyncio.sleep(0)
    return int(text)

@tool(name="tg")
async def tg(params, ctx):
    async with asyncio.TaskGroup() as g:
        g.create_task(ctx.call_tool("boom", {}))
    return {}

@tool(name="tgparse")
async def tgparse(params, ctx):
    async with asyncio.TaskGroup() as g:
        g.create_task(parse("twelve"))
    return {}

@tool(name="many")
async def many(params, ctx):
    raise ExceptionGroup("several", [KeyError("k%d" % i) for i in range(12)])

@tool(name="boom")
def boom(params):
    raise ToolError(ToolError.NotFound, "no such page")

from aios_sdk import ToolError

@tool(name="ok")
def ok(params):
    return {"ok": True}
`)
	_, err := call(h, "tg", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception): ToolError: NotFound: no such page")
	_, err = call(h, "tgparse", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception): ValueError: invalid literal for int() with base 10: 'twelve' (at tg.py:7)")
	_, err = call(h, "many", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "ExceptionGroup: several (12 sub-exceptions): KeyError: 'k0'; KeyError: 'k1'", "KeyError: 'k4'; … 7 more (at tg.py:23)")
	stillServes(t, h, "an ExceptionGroup")
}
