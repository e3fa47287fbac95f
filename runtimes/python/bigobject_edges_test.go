package python_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestSpaceWriteOverFrameNamesSpace: ctx.spaces.write of 50 MiB (under
// max_object_bytes, but its base64 passes the 64 MiB frame between the
// worker and the host) raised TooLarge "a message of 69905159 bytes,
// above the frame limit …", naming neither the operation, the space nor
// the data's size. It names ctx.spaces.write, the bytes and the space.
func TestSpaceWriteOverFrameNamesSpace(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "bigw.py", `from aios_sdk import Agent, tool, ToolError

@Agent(name="BigW", capabilities=["WriteSpace(images)"])
class BigW:
    @tool(name="big-write", parameters={})
    async def big_write(self, params, ctx):
        try:
            return {"id": await ctx.spaces.write("images", bytes(50 * 1024 * 1024))}
        except ToolError as e:
            return {"error": "%s: %s" % (e.code, e.message)}
`)
	got, err := call(h, "big-write", map[string]any{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := got.(map[string]any)["error"].(string)
	for _, want := range []string{"TooLarge: ", "ctx.spaces.write", "52428800 bytes", `'images'`, "frame limit"} {
		if !strings.Contains(msg, want) {
			t.Errorf("big-write: %#v; want TooLarge naming ctx.spaces.write, the bytes, the space and the frame limit (%q missing)", got, want)
		}
	}
}

// TestAsyncioReadPastMemoryFails: a tool running on asyncio (it awaited
// asyncio.sleep first) reading an object whose answer does not fit in
// the worker's memory limit hung until its deadline (Timeout, the worker
// killed): the MemoryError struck while the worker's event loop read the
// answer, where asyncio only logs it, and the read's future never
// settled. The read now fails with MemoryError at the tool's await, which
// the call reports naming the line, at once.
func TestAsyncioReadPastMemoryFails(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.MemoryMB = 256 }))
	obj, err := h.Spaces().Put("documents", bytes.Repeat([]byte{0xfe}, 100<<20))
	if err != nil {
		t.Fatal(err)
	}
	loadTool(t, h, "bigread.py", `import asyncio
from aios_sdk import Agent, tool

@Agent(name="BigRead", capabilities=["ReadSpace(documents)"])
class BigRead:
    @tool(name="big-read", parameters={"id": {"type": "string"}})
    async def big_read(self, params, ctx):
        await asyncio.sleep(0)
        obj = await ctx.spaces.read(params["id"], "documents")
        return {"n": len(obj)}
`)
	// A deadline far past the read's time (seconds; under the race
	// detector the host's encoding of the answer takes a minute): the
	// call ends with the read's error, not Timeout.
	_, err = call(h, "big-read", map[string]any{"id": obj}, 5*time.Minute)
	wantCode(t, err, abi.ProviderError, "MemoryError in tool big-read at bigread.py:9")
}

// TestReadPastMemoryNamesLine: a tool driven without asyncio reading an
// object whose answer does not fit in the worker's memory failed
// "MemoryError in tool big-read: out of memory", naming no line, where
// other MemoryErrors name the tool's (TestMemoryErrorNamesLine): the
// error was raised in the worker's reading of the answer, outside the
// tool's code. It is raised at the tool's await, whose line is named.
func TestReadPastMemoryNamesLine(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.MemoryMB = 256 }))
	obj, err := h.Spaces().Put("documents", bytes.Repeat([]byte{0xfe}, 100<<20))
	if err != nil {
		t.Fatal(err)
	}
	loadTool(t, h, "bigsync.py", `from aios_sdk import Agent, tool

@Agent(name="BigSync", capabilities=["ReadSpace(documents)"])
class BigSync:
    @tool(name="big-sync", parameters={"id": {"type": "string"}})
    async def big_sync(self, params, ctx):
        obj = await ctx.spaces.read(params["id"], "documents")
        return {"n": len(obj)}
`)
	_, err = call(h, "big-sync", map[string]any{"id": obj}, 5*time.Minute)
	wantCode(t, err, abi.ProviderError, "MemoryError in tool big-sync at bigsync.py:7")
}
