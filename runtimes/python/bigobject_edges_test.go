package python_test

import (
	"strings"
	"testing"
	"time"
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
