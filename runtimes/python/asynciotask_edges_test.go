package python_test

import (
	"reflect"
	"testing"
	"time"
)

const asyncioTaskSrc = `import asyncio
from aios_sdk import tool

@tool(name="ok")
def ok(params):
    return {"ok": True}

async def twice(x):
    await asyncio.sleep(0)
    return 2 * x

@tool(name="in-task")
async def in_task(params, ctx):
    return {"task": asyncio.current_task() is not None}

@tool(name="with-timeout")
async def with_timeout(params, ctx):
    async with asyncio.timeout(10):
        return {"doubled": await twice(4)}

@tool(name="timeout-fires")
async def timeout_fires(params, ctx):
    try:
        async with asyncio.timeout(0.05):
            await asyncio.sleep(30)
    except TimeoutError:
        return {"timed_out": True}
    return {"timed_out": False}

@tool(name="task-group")
async def task_group(params, ctx):
    async with asyncio.TaskGroup() as tg:
        a = tg.create_task(twice(1))
        b = tg.create_task(twice(2))
    return {"sum": a.result() + b.result()}
`

// TestAsyncioTaskFromTheStart: an async def tool of a file using asyncio
// ran without a task until its first await of something other than a ctx
// service (the cheaper driver), so what asks for the current task at once
// failed: "async with asyncio.timeout(5)" raised "RuntimeError: Timeout
// should be used inside a task", "async with asyncio.TaskGroup()" "TaskGroup
// <TaskGroup> cannot determine the parent task", and asyncio.current_task()
// was None. When asyncio is loaded the call runs as a task on the worker's
// loop from its start; tools that do not use asyncio keep the cheaper
// driver.
func TestAsyncioTaskFromTheStart(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "tasks.py", asyncioTaskSrc)
	for _, tc := range []struct {
		tool string
		want map[string]any
	}{
		{"in-task", map[string]any{"task": true}},
		{"with-timeout", map[string]any{"doubled": int64(8)}},
		{"timeout-fires", map[string]any{"timed_out": true}},
		{"task-group", map[string]any{"sum": int64(6)}},
	} {
		got, err := call(h, tc.tool, map[string]any{}, 20*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.tool, got, tc.want)
		}
	}
	stillServes(t, h, "asyncio tasks")
}
