package python_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// probeSurrogateSrc returns or passes on text holding a lone surrogate (a
// file name decoded with surrogateescape, or a "\ud800" literal): no UTF-8
// form exists, so the value cannot cross to the host unchanged.
const probeSurrogateSrc = `
from aios_sdk import Capability, provider, tool

provider(id="org.test.surrogates", capabilities=[Capability.CallTool("echo-params")])

NAME = b"/tmp/\xff.txt".decode("utf-8", "surrogateescape")
CASES = {
    "value": lambda: {"files": [NAME]},
    "literal": lambda: {"s": "a\ud800b"},
    "key": lambda: {"by_name": {NAME: 1}},
}

@tool(name="sur", parameters={"type": "object"})
def sur(params):
    return CASES[params["case"]]()

@tool(name="sur-host", parameters={"type": "object"})
async def sur_host(params, ctx):
    try:
        await ctx.call_tool("echo-params", CASES[params["case"]]())
    except Exception as e:
        return {"raised": type(e).__name__, "message": str(e)}
    return {"raised": None}
`

// TestLoneSurrogates: a result or a host call's arguments holding a
// lone surrogate are refused alike in both wire formats, with an error
// naming where the text is; never sent as U+FFFD. The refusal said
// "'utf-8' codec can't encode character '\udcff' in position 98", a
// position in the wire frame (another in each format), and no path; and
// in an async tool awaiting ctx.call_tool inline the UnicodeEncodeError
// (as any TypeError/ValueError of unsendable arguments) escaped the tool's
// try/except and failed the call, where on asyncio's loop or with .wait()
// the tool could catch it.
func TestLoneSurrogates(t *testing.T) {
	results := map[string]map[string]string{}
	for _, wf := range []string{"msgpack", "json"} {
		t.Run(wf, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "surrogates.py", probeSurrogateSrc)
			loadTool(t, h, "echo_params.py", echoParams)
			got := map[string]string{}
			for _, c := range []struct{ name, where string }{
				{"value", "$.files[0]"}, {"literal", "$.s"}, {"key", "$.by_name"},
			} {
				v, err := call(h, "sur", map[string]any{"case": c.name}, 10*time.Second)
				var te *abi.ToolError
				if !errors.As(err, &te) {
					t.Errorf("%s: returned %#v, %v; want InvalidResult", c.name, v, err)
					continue
				}
				got[c.name] = string(te.Code) + ": " + te.Message
				if te.Code != abi.InvalidResult || !strings.Contains(te.Message, c.where) || !strings.Contains(te.Message, "surrogate") {
					t.Errorf("%s: %s %q, want InvalidResult naming %s and the surrogate", c.name, te.Code, te.Message, c.where)
				}
				v, err = call(h, "sur-host", map[string]any{"case": c.name}, 10*time.Second)
				m, _ := v.(map[string]any)
				if err != nil || m["raised"] == nil {
					t.Errorf("%s as host call args: %#v, %v; want the call to raise", c.name, v, err)
					continue
				}
				got["host-"+c.name] = m["raised"].(string) + ": " + m["message"].(string)
				if msg, _ := m["message"].(string); m["raised"] != "ValueError" || !strings.Contains(msg, "$.params"+c.where[1:]) || !strings.Contains(msg, "surrogate") {
					t.Errorf("%s as host call args raised %v %q, want a message naming %s and the surrogate", c.name, m["raised"], msg, c.where)
				}
			}
			results[wf] = got
		})
	}
	for k, a := range results["msgpack"] {
		if b := results["json"][k]; a != b {
			t.Errorf("%s: msgpack %q, json %q", k, a, b)
		}
	}
}
