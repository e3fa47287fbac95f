package python_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// moduleTools is a file of module-level tools that asks for CallTool(*)
// with aios_sdk.provider, as the docs show it.
const moduleTools = `from aios_sdk import Capability, ToolError, provider, tool

provider(id="org.test.module", capabilities=[Capability.CallTool("*")])

@tool(name="inner")
def inner(params):
    return {"inner": params.get("x")}

@tool(name="outer")
async def outer(params, ctx):
    try:
        r = await ctx.call_tool("inner", {"x": 7})
    except ToolError as e:
        return {"error": e.code + ": " + e.message}
    return {"nested": r}
`

// TestModuleLevelProvider: aios_sdk.provider(...) gives a file without an
// @Agent class its id and capabilities; an Untrusted file holding
// CallTool(*) that way can call other tools.
func TestModuleLevelProvider(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	if _, err := h.LoadFile(context.Background(), writeTool(t, "module_tools.py", moduleTools), host.ProviderMeta{Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	rec := h.Registry().Provider("org.test.module")
	if rec == nil {
		t.Fatal("provider org.test.module is not registered (provider(id=...) ignored?)")
	}
	if g := rec.Grants.Strings(); !reflect.DeepEqual(g, []string{"CallTool(*)"}) {
		t.Fatalf("grants %v, want [CallTool(*)]", g)
	}
	v, err := call(h, "outer", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"nested": map[string]any{"inner": int64(7)}}; !reflect.DeepEqual(v, want) {
		t.Fatalf("outer: %#v, want %#v", v, want)
	}
}

// TestLoadErrorMessages: the load errors docs/python.md names.
func TestLoadErrorMessages(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		contains  []string
	}{
		{"both.py", "from aios_sdk import Agent, provider, tool\nprovider(id='org.test.a')\n@Agent(name='a')\nclass A:\n    @tool(name='a')\n    def a(self, p): return {}\n",
			[]string{"both.py", "both an @Agent class (A) and aios_sdk.provider(...)"}},
		{"twice.py", "from aios_sdk import provider, tool\nprovider()\nprovider()\n@tool(name='a')\ndef a(p): return {}\n",
			[]string{"twice.py:3: RuntimeError while loading: aios_sdk.provider(...) called twice"}},
		{"badcap.py", "from aios_sdk import provider, tool\nprovider(capabilities=['Nonsense('])\n@tool(name='a')\ndef a(p): return {}\n",
			[]string{"badcap.py"}},
		{"sysexit.py", "import sys\n\nsys.exit(5)\n",
			[]string{"sysexit.py:3: SystemExit while loading: the tool file called sys.exit(5); a tool file must not exit"}},
		{"memload.py", "x = 1\ny = [0] * 10 ** 10\n",
			[]string{"memload.py:2: MemoryError while loading: out of memory (the worker's memory limit is 512 MiB)"}},
		{"bare.py", "raise KeyError\n",
			[]string{"bare.py:1: KeyError while loading"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, tc.contains)
		})
	}
}
