package python_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const probeErrDataValuesSrc = `
import math
from aios_sdk import tool, ToolError

BAD = {"big": 2**64, "small": -2**63 - 1, "nan": math.nan, "bytes": b"xy", "u64": 2**64 - 1}

@tool
def fail(params):
    raise ToolError(ToolError.InvalidParams, "bad", {"a": [1, {"b": BAD[params["kind"]]}]})
`

// TestErrorDataValuesNamedAlike: a ToolError's data holding a value JSON
// does not carry is left out, the note in the message naming the value
// and its path in the data, alike in both wire formats (as the JS runtime
// names it). An integer beyond -2**63 .. 2**64-1 reached the caller as a
// float over JSON (1.8446744073709552e+19 for 2**64) and was noted as a
// bare "Integer value out of range" over MessagePack; NaN and bytes were
// named at "$.result.error.data…" (the frame's envelope) over MessagePack
// and with no path over JSON.
func TestErrorDataValuesNamedAlike(t *testing.T) {
	want := map[string]string{
		"big":   "bad (its data was left out: the integer 18446744073709551616 at $.a[1].b: integers must be within -2**63 .. 2**64-1",
		"small": "bad (its data was left out: the integer -9223372036854775809 at $.a[1].b: integers must be within -2**63 .. 2**64-1",
		"nan":   "bad (its data was left out: the float nan at $.a[1].b is not JSON serializable)",
		"bytes": "bad (its data was left out: bytes (bytes) at $.a[1].b is not JSON serializable)",
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "errdata.py", probeErrDataValuesSrc)
			for _, kind := range []string{"big", "small", "nan", "bytes"} {
				_, err := call(h, "fail", map[string]any{"kind": kind}, 30*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != abi.InvalidParams || te.Data != nil || len(te.Message) < len(want[kind]) || te.Message[:len(want[kind])] != want[kind] {
					t.Errorf("%s: got %#v\nwant InvalidParams without data, %q…", kind, err, want[kind])
				}
			}
			// 2**64-1 is the host's uint64: kept.
			_, err := call(h, "fail", map[string]any{"kind": "u64"}, 30*time.Second)
			te, _ := err.(*abi.ToolError)
			if want := map[string]any{"a": []any{int64(1), map[string]any{"b": uint64(1<<64 - 1)}}}; te == nil || fmt.Sprintf("%#v", te.Data) != fmt.Sprintf("%#v", want) {
				t.Errorf("u64: %#v", err)
			}
		})
	}
}

// TestErrorDataBigIntKey: a ToolError's data with a dict key that is an
// integer beyond 64 bits reaches the caller with json.dumps's decimal
// string as the key in both wire formats, as a result's does; over
// MessagePack it was left out, "(its data was left out: Integer value
// out of range)".
func TestErrorDataBigIntKey(t *testing.T) {
	src := `
from aios_sdk import tool, ToolError

@tool
def fail(params):
    raise ToolError(ToolError.Conflict, "taken", {"k": {2**70: "a"}})
`
	want := map[string]any{"k": map[string]any{"1180591620717411303424": "a"}}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "errkey.py", src)
			_, err := call(h, "fail", map[string]any{}, 30*time.Second)
			te, _ := err.(*abi.ToolError)
			if te == nil || te.Message != "taken" || fmt.Sprint(te.Data) != fmt.Sprint(want) {
				t.Errorf("got %#v; want Conflict \"taken\" with data %v", err, want)
			}
		})
	}
}
