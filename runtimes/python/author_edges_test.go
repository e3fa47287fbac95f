package python_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/space"
)

// TestUnawaitedHostOpWarned: `ctx.spaces.write(...)` without await
// (or without .wait() in a plain def) makes an awaitable that is dropped
// unrun: the tool answered {"ok": true}, nothing was written and nothing
// was logged (Python's own "coroutine was never awaited" does not concern
// a HostOp). The SDK now logs a warning naming the operation and "missing
// await?"; awaited and .wait()ed operations log none.
func TestUnawaitedHostOpWarned(t *testing.T) {
	rt := newRuntime(t, nil)
	cfg := testConfig(t)
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	var logs testutil.SyncBuffer
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: []abi.Loader{rt}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	loadTool(t, h, "forgot.py", `from aios_sdk import Agent, tool

@Agent(name="Forgot", capabilities=["WriteSpace(images)", "CallTool(*)"])
class Forgot:
    @tool(name="forgot-async", parameters={})
    async def forgot_async(self, params, ctx):
        ctx.spaces.write("images", b"lost")
        return {"ok": True}

    @tool(name="forgot-sync", parameters={})
    def forgot_sync(self, params, ctx):
        ctx.call_tool("awaits", {})
        return {"ok": True}

    @tool(name="awaits", parameters={})
    async def awaits(self, params, ctx):
        await ctx.spaces.write("images", b"kept")
        return {"ok": True}

    @tool(name="waits", parameters={})
    def waits(self, params, ctx):
        ctx.spaces.write("images", b"kept too").wait()
        return {"ok": True}
`)
	for _, tool := range []string{"awaits", "waits"} {
		if _, err := call(h, tool, map[string]any{}, 20*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(logs.String(), "missing await?") {
		t.Fatalf("a tool that awaits was warned about: %s", logs.String())
	}
	for tool, op := range map[string]string{"forgot-async": "ctx.spaces.write", "forgot-sync": "ctx.call_tool"} {
		if _, err := call(h, tool, map[string]any{}, 20*time.Second); err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "tool="+tool) && strings.Contains(l, "missing await?") {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, "level=WARN") || !strings.Contains(line, op) {
			t.Errorf("%s: no warning naming %s and \"missing await?\" in\n%s", tool, op, logs.String())
		}
	}
}

// TestHandlerArity: a handler taking a third parameter (or none)
// loaded, and every call failed "TypeError: a() missing 1 required
// positional argument: 'extra'" with no file or line. The load now fails at
// the handler's line, saying what a handler takes.
func TestHandlerArity(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, at string }{
		{"three.py", "from aios_sdk import tool\n\n@tool(name='a', parameters={})\ndef a(params, ctx, extra):\n    return {}\n", "three.py:3"},
		{"none.py", "from aios_sdk import tool\n\n@tool(name='b', parameters={})\ndef a():\n    return {}\n", "none.py:3"},
		{"method.py", "from aios_sdk import Agent, tool\n\n@Agent(name='M')\nclass M:\n    @tool(name='m', parameters={})\n    def m(self, params, ctx, extra):\n        return {}\n", "method.py:5"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.at) || !strings.Contains(err.Error(), "(params) or (params, ctx)") {
			t.Errorf("%s: %v; want a load error at %s saying what a handler takes", tc.name, err, tc.at)
		}
	}
	// Defaults, *args and keyword-only parameters are fine.
	for i, src := range []string{
		"from aios_sdk import tool\n@tool(name='d', parameters={})\ndef d(params, ctx=None, extra=1):\n    return {}\n",
		"from aios_sdk import tool\n@tool(name='v', parameters={})\ndef v(*args):\n    return {}\n",
		"from aios_sdk import tool\n@tool(name='k', parameters={})\ndef k(params, *, extra=1):\n    return {}\n",
	} {
		if _, err := h.LoadFile(context.Background(), writeTool(t, fmt.Sprintf("ok%d.py", i), src), host.ProviderMeta{Trust: abi.System}); err != nil {
			t.Errorf("ok%d: %v", i, err)
		}
	}
}
