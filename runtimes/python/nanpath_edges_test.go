package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestNaNResultNamedAlike: a result holding NaN or an infinity is
// InvalidResult naming the float and its path in both wire formats. Over
// JSON it was json.dumps's "Out of range float values are not JSON
// compliant", naming neither, where MessagePack said "the float nan at
// $.a[1]" (docs/python.md: values and errors are the same in both).
func TestNaNResultNamedAlike(t *testing.T) {
	src := `
from aios_sdk import tool

@tool
def nan(params):
    return {"a": [1, float("nan")]}

@tool
def inf(params):
    return [{"b": {"c": float("-inf")}}]
`
	want := map[string]string{
		"nan": "tool nan returned a value that is not JSON: the float nan at $.a[1]",
		"inf": "tool inf returned a value that is not JSON: the float -inf at $[0].b.c",
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "nanres.py", src)
			for _, tool := range []string{"nan", "inf"} {
				_, err := call(h, tool, map[string]any{}, 30*time.Second)
				te, ok := err.(*abi.ToolError)
				if !ok || te.Code != abi.InvalidResult || te.Message != want[tool] {
					t.Errorf("%s: got %#v\nwant InvalidResult %q", tool, err, want[tool])
				}
			}
		})
	}
}
