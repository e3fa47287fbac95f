package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestToolNotReachableRefused: a @tool function of the tool file that no
// module-level name (nor the @Agent class) holds, as tools made by a
// factory and kept in a list, or one inside a function, was left out
// without a word: the provider loaded without it. The load fails at its
// line, saying where tools are looked for.
func TestToolNotReachableRefused(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"factory.py", `from aios_sdk import tool

def make(n):
    @tool(name="get-" + n)
    def get(params):
        return {"n": n}
    return get

TOOLS = [make(n) for n in ("a", "b")]

@tool
def ok(params):
    return {"ok": True}
`, "factory.py:4: tool 'get-a' (get) is not one of the file's tools: @tool marks it, but no module-level name"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %q", tc.name, err, tc.want)
		}
	}
	// Tools held by a module-level name through a wrapper (functools.wraps
	// over the @tool function), an alias, or the @Agent class still load.
	p := loadTool(t, h, "held.py", `import functools
from aios_sdk import Agent, tool

def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper

@logged
@tool(name="wrapped")
def wrapped(params):
    return {"w": True}

@Agent
class A:
    @tool
    def m(self, params):
        return {"m": True}

    @tool
    @staticmethod
    def s(params):
        return {"s": True}
`)
	if n := len(p.Describe().Tools); n != 3 {
		t.Errorf("held.py: %d tools, want 3: %+v", n, p.Describe().Tools)
	}
	for _, tool := range []string{"wrapped", "m", "s"} {
		if _, err := call(h, tool, map[string]any{}, 0); err != nil {
			t.Errorf("%s: %v", tool, err)
		}
	}
}
