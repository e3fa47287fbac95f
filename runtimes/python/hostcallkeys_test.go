package python_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/runtimes/python"
)

const refusedKeyTools = `
from aios_sdk import Capability, provider, tool

provider(id="org.test.refused-keys", capabilities=[Capability.CallTool("echo-params")])

KEYS = {
    "tuple": lambda: {"a": [{(1, 2): "x"}]},
    "frozenset": lambda: {"a": [{frozenset(): "x"}]},
    "nan": lambda: {"a": [{float("nan"): "x"}]},
}

@tool(name="send-key", parameters={"type": "object"})
async def send_key(params, ctx):
    try:
        await ctx.call_tool("echo-params", {"x": KEYS[params["case"]]()})
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e)}
    return {"sent": True}

@tool(name="send-key-sync", parameters={"type": "object"})
def send_key_sync(params, ctx):
    try:
        ctx.call_tool("echo-params", {"x": KEYS[params["case"]]()}).wait()
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e)}
    return {"sent": True}
`

// TestHostCallRefusedKeyAlike: ctx.call_tool arguments holding a dict key
// json.dumps refuses (a tuple, a frozenset, NaN) raise the same exception
// in the tool over both wire formats, naming the operation and the path of
// the dict. A tuple key went to the host over MessagePack (the packer
// writes it as an array) and came back as a ToolError InvalidParams, where
// over JSON the tool got json.dumps's bare TypeError, naming neither.
func TestHostCallRefusedKeyAlike(t *testing.T) {
	got := map[string]map[string]any{}
	for _, wf := range []string{"msgpack", "json"} {
		rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
		h := newHost(t, rt)
		loadTool(t, h, "refused_keys.py", refusedKeyTools)
		loadTool(t, h, "echo_params.py", echoParams)
		got[wf] = map[string]any{}
		for _, c := range []string{"tuple", "frozenset", "nan"} {
			for _, tool := range []string{"send-key", "send-key-sync"} {
				v, err := call(h, tool, map[string]any{"case": c}, 20*time.Second)
				if err != nil {
					t.Fatalf("%s %s %s: %v", wf, tool, c, err)
				}
				m, _ := v.(map[string]any)
				msg, _ := m["message"].(string)
				if !strings.HasPrefix(msg, "call_tool arguments: ") || !strings.Contains(msg, "$.params.x.a[0]") {
					t.Errorf("%s %s %s: %#v; want an exception naming call_tool arguments and $.params.x.a[0]", wf, tool, c, v)
				}
				got[wf][tool+" "+c] = v
			}
		}
	}
	if !reflect.DeepEqual(got["msgpack"], got["json"]) {
		t.Errorf("the formats disagree:\nmsgpack %v\njson    %v", got["msgpack"], got["json"])
	}
}
