package python_test

import (
	"testing"
)

// TestToolAliasIsOneTool: a second name for a tool function (a
// module-level g = f, or alias = method in an @Agent class) is the same
// handler, not a second definition: the load failed "tool 'f' is defined
// twice: g (line 7) and f (line 3)", naming one function twice.
func TestToolAliasIsOneTool(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "aliasfn.py", `from aios_sdk import tool

@tool
def f(params):
    return {"f": params.get("n")}

g = f
`)
	loadTool(t, h, "aliasmeth.py", `from aios_sdk import Agent, tool

@Agent
class A:
    @tool
    def m(self, params, ctx):
        return {"m": params.get("n")}

    alias = m
`)
	for _, tc := range []struct{ tool, key string }{{"f", "f"}, {"m", "m"}} {
		got, err := call(h, tc.tool, map[string]any{"n": 2}, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if m, _ := got.(map[string]any); m[tc.key] != int64(2) && m[tc.key] != float64(2) {
			t.Fatalf("%s returned %#v", tc.tool, got)
		}
	}
}
