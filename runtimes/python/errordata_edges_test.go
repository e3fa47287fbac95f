package python_test

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const probeErrorDataSrc = `
from aios_sdk import tool, ToolError, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

@tool(parameters={"type": "object", "properties": {"value": {}}})
def raise_data(params):
    raise ToolError("NotFound", "with data", data=params["value"])

@tool(parameters={"type": "object", "properties": {"value": {}}})
def relay(params, ctx):
    try:
        ctx.call_tool("raise-data", {"value": params["value"]}).wait()
    except ToolError as e:
        raise ToolError(e.code, "relayed", data=e.data)
    return None

@tool(parameters={"type": "object", "properties": {"value": {}}})
def echo(params):
    return params["value"]

@tool(parameters={"type": "object", "properties": {"value": {}}})
def relay_ok(params, ctx):
    return ctx.call_tool("echo", {"value": params["value"]}).wait()
`

// TestErrorDataValues: a ToolError's data keeps its values exactly,
// raised by a tool and relayed by another that caught it from
// ctx.call_tool, in both wire formats, as a result relayed does: a whole
// float (2.0, -0.0) reached the relaying tool as an int over JSON.
func TestErrorDataValues(t *testing.T) {
	values := []any{
		int64(math.MaxInt64), int64(math.MinInt64), int64(1<<53 + 1), uint64(math.MaxUint64),
		0.1, 5e-324, math.MaxFloat64, float64(1 << 60), math.Copysign(0, -1), 1.5, 2.0, []any{3.0, map[string]any{"f": -4.0}},
		"", "a\x00b\u2028", []any{}, map[string]any{}, []any{nil, map[string]any{"": nil}},
		map[string]any{"__proto__": int64(1), "e\u0301": "é"},
	}
	for _, w := range []string{"json", "msgpack"} {
		t.Run(w, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = w })
			h := newHost(t, rt)
			loadTool(t, h, "errdata.py", probeErrorDataSrc)
			for _, tool := range []string{"raise-data", "relay"} {
				for _, v := range values {
					_, err := call(h, tool, map[string]any{"value": abi.Copy(v)}, 20*time.Second)
					var te *abi.ToolError
					if !errors.As(err, &te) || te.Code != abi.NotFound {
						t.Fatalf("%s %#v: %v", tool, v, err)
					}
					if !reflect.DeepEqual(te.Data, v) {
						t.Errorf("%s: data %#v came back as %#v (%T)", tool, v, te.Data, te.Data)
					}
				}
			}
			for _, v := range values {
				got, err := call(h, "relay-ok", map[string]any{"value": abi.Copy(v)}, 20*time.Second)
				if err != nil || !reflect.DeepEqual(got, v) {
					t.Errorf("relay-ok: %#v came back as %#v (%T), %v", v, got, got, err)
				}
			}
		})
	}
}
