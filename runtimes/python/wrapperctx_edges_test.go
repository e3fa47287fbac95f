package python_test

import (
	"reflect"
	"testing"
)

// TestFunctionWrapperToolGetsCtxAsWrapped: a handler behind a decorator
// written the usual way, a function wrapper(*args, **kwargs) with
// functools.wraps, was given ctx because the wrapper takes *args, whatever
// the wrapped function takes: every call of a (params) handler failed
// "TypeError: f() takes 1 positional argument but 2 were given". Whether
// it takes ctx is read through __wrapped__, as for a wrapper object.
func TestFunctionWrapperToolGetsCtxAsWrapped(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "wrapped.py", `import functools
from aios_sdk import Agent, tool

def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper

@tool(name="plain")
@logged
def plain(params):
    return {"plain": params.get("x")}

@logged
@tool(name="outer")
def outer(params):
    return {"outer": params.get("x")}

@tool(name="with-ctx")
@logged
def with_ctx(params, ctx):
    return {"tool": ctx.tool}

@Agent
class A:
    @tool(name="method")
    @logged
    def method(self, params):
        return {"method": params.get("x")}

    @tool(name="method-ctx")
    @logged
    def method_ctx(self, params, ctx):
        return {"tool": ctx.tool}
`)
	for tool, want := range map[string]any{
		"plain":      map[string]any{"plain": int64(3)},
		"outer":      map[string]any{"outer": int64(3)},
		"with-ctx":   map[string]any{"tool": "with-ctx"},
		"method":     map[string]any{"method": int64(3)},
		"method-ctx": map[string]any{"tool": "method-ctx"},
	} {
		got, err := call(h, tool, map[string]any{"x": 3}, 0)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, %v; want %v", tool, got, err, want)
		}
	}
}
