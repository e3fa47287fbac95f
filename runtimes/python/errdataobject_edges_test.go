package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestErrorDataObjectNamedWithPath: a ToolError's data holding an object
// JSON does not carry (a set, a datetime) is left out with a note naming
// it, its path in the data and what to send instead, in the words a
// result gets (TestNotJSONResultSaysWhatToReturn) and alike in both wire
// formats. The note said "Object of type set is not JSON serializable"
// over JSON, with no path, and the packer's "can not serialize 'set'
// object" over MessagePack.
func TestErrorDataObjectNamedWithPath(t *testing.T) {
	src := `
import datetime
from aios_sdk import tool, ToolError

BAD = {"set": {1, 2}, "when": datetime.date(2026, 1, 2)}

@tool
def fail(params):
    raise ToolError(ToolError.NotFound, "gone", {"a": [1, {"b": BAD[params["kind"]]}]})
`
	want := map[string]string{
		"set":  "gone (its data was left out: Object of type set is not JSON serializable (at $.a[1].b); return a list, sorted(x) or list(x))",
		"when": "gone (its data was left out: Object of type date is not JSON serializable (at $.a[1].b); return it as text, x.isoformat())",
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "errobj.py", src)
			for _, kind := range []string{"set", "when"} {
				_, err := call(h, "fail", map[string]any{"kind": kind}, 30*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != abi.NotFound || te.Data != nil || te.Message != want[kind] {
					t.Errorf("%s: got %#v\nwant NotFound without data, %q", kind, err, want[kind])
				}
			}
		})
	}
}
