package python_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const probeArgValuesSrc = `
import math
from aios_sdk import tool, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

@tool
def peer(params):
    return params

BAD = {"big": 2**64, "small": -2**63 - 1, "inf": math.inf, "nan": math.nan, "bytes": b"xy"}

@tool
def send(params):
    v = {"a": [1, {"b": BAD[params["kind"]]}]}
    try:
        return {"sent": ctx_call(params, v)}
    except (TypeError, ValueError) as e:
        return {"refused": "%s: %s" % (type(e).__name__, e)}

def ctx_call(params, v):
    return params["__ctx"].call_tool("peer", {"value": v}).wait()

@tool
def run(params, ctx):
    params = dict(params, __ctx=ctx)
    return send(params)
`

// TestHostCallArgValuesNamedAlike: a ctx.call_tool argument that JSON does
// not carry is the tool's TypeError or ValueError naming its path in the
// arguments, in both wire formats, as a result holding it is InvalidResult
// naming its path. An integer beyond -2**63 .. 2**64-1 was sent over JSON
// and reached the called tool as another number, a float
// (1.8446744073709552e+19 for 2**64), and over MessagePack was a bare
// "OverflowError: Integer value out of range"; NaN, an infinity and bytes
// were named at "$.host.args.params.value…" (the frame's envelope) over
// MessagePack and with no path at all over JSON.
func TestHostCallArgValuesNamedAlike(t *testing.T) {
	want := map[string]string{
		"big":   "ValueError: call_tool arguments: the integer 18446744073709551616 at $.params.value.a[1].b: integers must be within -2**63 .. 2**64-1",
		"small": "ValueError: call_tool arguments: the integer -9223372036854775809 at $.params.value.a[1].b: integers must be within -2**63 .. 2**64-1",
		"inf":   "ValueError: call_tool arguments: the float inf at $.params.value.a[1].b is not JSON serializable",
		"nan":   "ValueError: call_tool arguments: the float nan at $.params.value.a[1].b is not JSON serializable",
		"bytes": "TypeError: call_tool arguments: bytes (bytes) at $.params.value.a[1].b is not JSON serializable",
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "argvalues.py", probeArgValuesSrc)
			for _, kind := range []string{"big", "small", "inf", "nan", "bytes"} {
				got, err := call(h, "run", map[string]any{"kind": kind}, 30*time.Second)
				if err != nil {
					t.Errorf("%s: %v (%v)", kind, err, abi.CodeOf(err))
					continue
				}
				m, _ := got.(map[string]any)
				r, _ := m["refused"].(string)
				if !strings.HasPrefix(r, want[kind]) {
					t.Errorf("%s: got %v\nwant the refusal %q…", kind, got, want[kind])
				}
			}
		})
	}
}

const probeArgObjectsSrc = `
import datetime
from aios_sdk import tool, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

@tool
def peer(params):
    return params

@tool
def run(params, ctx):
    bad = {"set": {1}, "when": datetime.date(2026, 1, 2)}[params["kind"]]
    try:
        return {"sent": ctx.call_tool("peer", {"value": {"a": [1, {"b": bad}]}}).wait()}
    except (TypeError, ValueError) as e:
        return {"refused": "%s: %s" % (type(e).__name__, e)}
`

// TestHostCallArgObjectNamed: an object neither wire format carries (a
// set, a date) in ctx.call_tool's arguments is the tool's TypeError naming
// its path, in both formats, as it is in a result. It said json.dumps's
// "Object of type set is not JSON serializable", naming no path.
func TestHostCallArgObjectNamed(t *testing.T) {
	want := map[string]string{
		"set":  "TypeError: call_tool arguments: Object of type set is not JSON serializable (at $.params.value.a[1].b)",
		"when": "TypeError: call_tool arguments: Object of type date is not JSON serializable (at $.params.value.a[1].b)",
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "argobjects.py", probeArgObjectsSrc)
			for _, kind := range []string{"set", "when"} {
				got, err := call(h, "run", map[string]any{"kind": kind}, 30*time.Second)
				if m, _ := got.(map[string]any); err != nil || m["refused"] != want[kind] {
					t.Errorf("%s: got %v, %v\nwant the refusal %q", kind, got, err, want[kind])
				}
			}
		})
	}
}

const probeArgBigKeySrc = `
from aios_sdk import tool, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

@tool
def peer(params):
    return params

@tool
def run(params, ctx):
    return ctx.call_tool("peer", {"value": {2**70: "a", -2**64: "b", 1: "c"}}).wait()
`

// TestHostCallArgBigIntKey: a dict key that is an integer beyond 64 bits
// in ctx.call_tool's arguments becomes json.dumps's string for it in both
// wire formats, as in a result (docs/python.md: "The same conversion
// applies to a host call's arguments"); over MessagePack the packer's
// bare "OverflowError: Integer value out of range" failed the call.
func TestHostCallArgBigIntKey(t *testing.T) {
	want := map[string]any{"value": map[string]any{"1180591620717411303424": "a", "-18446744073709551616": "b", "1": "c"}}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "argbigkey.py", probeArgBigKeySrc)
			got, err := call(h, "run", map[string]any{}, 30*time.Second)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, %v; want %v", got, err, want)
			}
		})
	}
}
