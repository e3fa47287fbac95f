package python_test

import (
	"reflect"
	"testing"
	"time"
)

const createTaskSrc = `import asyncio
from aios_sdk import Capability, provider, tool

provider(id="org.test.createtask", capabilities=[Capability.WriteSpace("images")])

@tool(name="ok")
def ok(params):
    return {"ok": True}

@tool(name="create-task")
async def create_task(params, ctx):
    t = asyncio.create_task(ctx.spaces.write("images", b"one"))
    return {"id": (await t)[:7]}

@tool(name="group-task")
async def group_task(params, ctx):
    async with asyncio.TaskGroup() as tg:
        a = tg.create_task(ctx.spaces.write("images", b"two"))
    return {"id": a.result()[:7]}
`

// TestCreateTaskOfCtxCall: asyncio.create_task(ctx.spaces.write(...)) (or
// of ctx.call_tool, or TaskGroup.create_task) failed "TypeError: a
// coroutine was expected, got <aios_sdk._core.HostOp object …>", where
// docs/python.md says asyncio tasks work over ctx and every ctx method
// returns an awaitable: asyncio takes coroutines only. The operation is a
// coroutine too (send, throw and close beside __await__), so a task runs
// it.
func TestCreateTaskOfCtxCall(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "createtask.py", createTaskSrc)
	for _, tool := range []string{"create-task", "group-task"} {
		got, err := call(h, tool, map[string]any{}, 20*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if want := map[string]any{"id": "sha256:"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", tool, got, want)
		}
	}
	stillServes(t, h, "tasks of ctx operations")
}
