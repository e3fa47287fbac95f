package python_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const noneKeyTools = `
from aios_sdk import Capability, ToolError, provider, tool

provider(id="org.test.nonekey", capabilities=[Capability.CallTool("echo-params")])

@tool(name="host-none-key", parameters={"type": "object"})
async def host_none_key(params, ctx):
    return await ctx.call_tool("echo-params", {"x": {None: 1}, "y": None})

@tool(name="data-none-key", parameters={"type": "object"})
def data_none_key(params):
    raise ToolError("NotFound", "no such thing", {None: "n", "z": None})
`

// TestNoneKeyInHostCallIsNull: a dict key None in ctx.call_tool's
// arguments (or a ToolError's data) reached the called tool as "" over
// MessagePack (the envelope's lenient decoding read a nil key as an empty
// string), where a result with the same dict, and the JSON wire, give
// "null" as json.dumps does (docs/python.md). Now both formats give
// "null" everywhere.
func TestNoneKeyInHostCallIsNull(t *testing.T) {
	for _, wf := range []string{"msgpack", "json"} {
		t.Run(wf, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "nonekey_tools.py", noneKeyTools)
			loadTool(t, h, "echo_params.py", echoParams)
			v, err := call(h, "host-none-key", map[string]any{}, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"x": map[string]any{"null": int64(1)}, "y": nil}
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("echo-params got %#v, want %#v", v, want)
			}
			_, err = call(h, "data-none-key", map[string]any{}, 20*time.Second)
			var te *abi.ToolError
			if !errors.As(err, &te) || te.Code != abi.NotFound {
				t.Fatalf("want NotFound, got %v", err)
			}
			if wantData := map[string]any{"null": "n", "z": nil}; !reflect.DeepEqual(te.Data, wantData) {
				t.Fatalf("error data %#v, want %#v", te.Data, wantData)
			}
		})
	}
}
