package python_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/host"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool that forgets to await a ctx service (return ctx.call_tool(...)) or
// returns an un-awaited coroutine got InvalidResult "Object of type HostOp
// is not JSON serializable" / "… coroutine …": nothing says what went
// wrong, where the JS SDK says "a Promise is not a JSON value (missing
// await?)". Both wire formats.
func TestMissingAwaitNamed(t *testing.T) {
	for _, wf := range []string{"json", "msgpack"} {
		t.Run(wf, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "noawait.py", `
from aios_sdk import provider, tool, Capability
provider(id="org.test.noawait", capabilities=[Capability.CallTool("*")])

@tool(name="ok")
def ok(params):
    return {"ok": True}

async def helper():
    return 1

@tool(name="hostop")
async def hostop(params, ctx):
    return {"r": ctx.call_tool("ok", {})}

@tool(name="coro")
def coro(params):
    return [1, helper()]
`)
			for _, c := range []struct{ tool, want string }{
				{"hostop", "$.r"},
				{"coro", "$[1]"},
			} {
				_, err := call(h, c.tool, map[string]any{}, 0)
				wantCode(t, err, abi.InvalidResult, "tool "+c.tool, c.want, "missing await?")
			}
			stillServes(t, h, "an un-awaited result")
		})
	}
}

// @Agent without parentheses (as the SDK's bare @tool works) turned the
// class into an Agent options object: the load failed with "registers no
// tools: decorate … methods of an @Agent(...) class", not naming the
// missing parentheses. The JS SDK takes a bare @Agent too.
func TestBareAgent(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "bare_agent.py", `
from aios_sdk import Agent, tool

@Agent
class Greeter:
    """Says hello."""
    def __init__(self):
        self.greeting = "hi"

    @tool
    def hello(self, params):
        return {"msg": self.greeting + " " + params.get("name", "")}

    @tool(name="ok")
    def ok(self, params):
        return {"ok": True}
`)
	if d := p.Describe(); d.Provider.Name != "Greeter" || d.Provider.Description != "Says hello." || d.Provider.ID != "local.bare-agent" {
		t.Fatalf("provider %+v", d.Provider)
	}
	v, err := call(h, "hello", map[string]any{"name": "ann"}, 0)
	if err != nil || v.(map[string]any)["msg"] != "hi ann" {
		t.Fatalf("%#v %v", v, err)
	}
	stillServes(t, h, "a bare @Agent")
}

// A whole schema with a mistyped type ({"type": "objekt"}) or a $schema
// was read as the shorthand, its keywords as parameters: the load failed
// with "@tool parameters['type']: want a JSON Schema dict, got 'objekt'",
// which reads as if "type" were a parameter. The JS SDK takes any string
// type or $schema as a whole schema (the host then names the bad type);
// the same declared schema now reads the same in both.
func TestWholeSchemaRuleMatchesJS(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	_, err := h.LoadFile(context.Background(), writeTool(t, "typo.py", `
from aios_sdk import tool
@tool(name="x", parameters={"type": "objekt"})
def x(params):
    return 1
`), host.ProviderMeta{Source: "typo.py", Trust: abi.System})
	if err == nil || !strings.Contains(err.Error(), `"objekt" is not allowed`) {
		t.Fatalf("got %v, want the host's schema error naming \"objekt\"", err)
	}
	p := loadTool(t, h, "dollar.py", `
from aios_sdk import tool
@tool(name="d", parameters={"$schema": "https://json-schema.org/draft/2020-12/schema", "required": ["a"]})
def d(params):
    return params

@tool(name="ok")
def ok(params):
    return {"ok": True}
`)
	for _, tl := range p.Describe().Tools {
		if tl.Name == "d" {
			if r, _ := tl.Parameters["required"].([]any); len(r) != 1 || r[0] != "a" || tl.Parameters["$schema"] == nil || tl.Parameters["type"] != "object" {
				t.Fatalf("parameters %#v", tl.Parameters)
			}
		}
	}
}

// A result holding an object JSON does not carry (a set, a datetime) was
// refused in json.dumps's words only, "Object of type set is not JSON
// serializable", without saying where, while the JS SDK and the Python
// SDK's own bytes/NaN refusals name the path. Both wire formats.
func TestNotJSONObjectPath(t *testing.T) {
	for _, wf := range []string{"json", "msgpack"} {
		t.Run(wf, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "objpath.py", `
import datetime
from aios_sdk import tool

@tool(name="ok")
def ok(params):
    return {"ok": True}

@tool(name="deep")
def deep(params):
    return {"a": [1, {"when": datetime.date(2026, 1, 2)}]}
`)
			_, err := call(h, "deep", map[string]any{}, 0)
			wantCode(t, err, abi.InvalidResult, "tool deep", "is not JSON serializable", "$.a[1].when")
			stillServes(t, h, "a non-JSON object")
		})
	}
}

// A whole schema without a type made of keywords whose values are not
// schemas ({"enum": [...]}, {"anyOf": [...]}, {"$ref": ...}) is used as
// given, as by the JS, native and Go guest SDKs (p24's leftover: it was
// read as the shorthand and refused at load). A property named like a
// keyword, whose value is a schema, is still the shorthand.
func TestKeywordSchemasAsGiven(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "kw.py", `
from aios_sdk import tool

@tool(name="en", returns={"enum": ["a", "b"]})
def en(params):
    return "a"

@tool(name="any", parameters={"anyOf": [{"type": "object", "required": ["x"]}, {"type": "object", "required": ["y"]}]})
def any_(params):
    return params

@tool(name="ref", parameters={"$ref": "#/$defs/p", "$defs": {"p": {"type": "object"}}})
def ref(params):
    return params

@tool(name="short", parameters={"enum": {"type": "string"}})
def short(params):
    return params
`)
	want := map[string][2]map[string]any{
		"en":    {{"type": "object"}, {"enum": []any{"a", "b"}}},
		"any":   {{"type": "object", "anyOf": []any{map[string]any{"type": "object", "required": []any{"x"}}, map[string]any{"type": "object", "required": []any{"y"}}}}, nil},
		"ref":   {{"type": "object", "$ref": "#/$defs/p", "$defs": map[string]any{"p": map[string]any{"type": "object"}}}, nil},
		"short": {{"type": "object", "properties": map[string]any{"enum": map[string]any{"type": "string"}}, "required": []any{"enum"}}, nil},
	}
	seen := 0
	for _, tl := range p.Describe().Tools {
		w, ok := want[tl.Name]
		if !ok {
			continue
		}
		seen++
		if !reflect.DeepEqual(tl.Parameters, w[0]) || w[1] != nil && !reflect.DeepEqual(tl.Returns, w[1]) {
			t.Errorf("%s: parameters %#v returns %#v\nwant %#v %#v", tl.Name, tl.Parameters, tl.Returns, w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of %d tools registered", seen, len(want))
	}
}
