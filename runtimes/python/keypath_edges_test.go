package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestRefusedKeyNamesItsDict: a result holding a dict key that JSON
// cannot carry (a tuple, a frozenset, NaN) is InvalidResult naming the
// dict that holds it, in both wire formats, as a refused value is named
// by its path. It was json.dumps's words alone, "keys must be str, int,
// float, bool or None, not tuple", which named no place in a large result.
func TestRefusedKeyNamesItsDict(t *testing.T) {
	src := `
from aios_sdk import tool

@tool
def tuplekey(params):
    return {"a": [1, {"b": {(1, 2): "x"}}]}

@tool
def nankey(params):
    return [{"c": {float("nan"): 1}}]

@tool
def fskey(params):
    return {"d": {frozenset([1]): 1}}

@tool
def topkey(params):
    return {(1,): 1}
`
	want := map[string]string{
		"tuplekey": "tool tuplekey returned a value that is not JSON: keys must be str, int, float, bool or None, not tuple (a key of the dict at $.a[1].b)",
		"nankey":   "tool nankey returned a value that is not JSON: Out of range float values are not JSON compliant (a key of the dict at $[0].c)",
		"fskey":    "tool fskey returned a value that is not JSON: keys must be str, int, float, bool or None, not frozenset (a key of the dict at $.d)",
		"topkey":   "tool topkey returned a value that is not JSON: keys must be str, int, float, bool or None, not tuple (a key of the dict at $)",
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "keypath.py", src)
			for _, tool := range []string{"tuplekey", "nankey", "fskey", "topkey"} {
				_, err := call(h, tool, map[string]any{}, 30*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != abi.InvalidResult || te.Message != want[tool] {
					t.Errorf("%s: got %v, want InvalidResult %q", tool, err, want[tool])
				}
			}
		})
	}
}
