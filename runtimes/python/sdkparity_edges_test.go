package python_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/python"
)

const parityPy = `
from aios_sdk import ToolError, provider, tool

provider(id="org.probe.py", capabilities=["CallTool(allowed-*)", "ReadSpace(documents)"])

def _err(e):
    return {"code": getattr(e, "code", type(e).__name__), "message": getattr(e, "message", str(e))}

@tool(name="py-read-missing", parameters={})
async def read_missing(params, ctx):
    try:
        await ctx.spaces.read("sha256:" + "0" * 64)
    except Exception as e:
        return _err(e)
    return {"code": "none"}

@tool(name="py-call-denied", parameters={})
async def call_denied(params, ctx):
    try:
        await ctx.call_tool("denied-target", {})
    except Exception as e:
        return _err(e)
    return {"code": "none"}

@tool(name="py-raise", parameters={})
async def raise_code(params, ctx):
    raise ToolError("NotFound", "no such thing")

@tool(name="py-bytes", parameters={})
async def bytes_result(params, ctx):
    return {"b": b"ab"}

@tool(name="py-unknown-code", parameters={})
def unknown_code(params, ctx):
    raise ToolError("Bogus", "odd code")

@tool(name="py-data", parameters={})
def with_data(params, ctx):
    raise ToolError("Conflict", "taken", {"k": [1, 2]})

@tool(name="py-plain", parameters={})
def plain(params, ctx):
    raise ValueError("bad value")

@tool(name="py-write-denied", parameters={})
async def write_denied(params, ctx):
    try:
        await ctx.spaces.write("documents", "x")
    except Exception as e:
        return _err(e)
    return {"code": "none"}

@tool(name="py-read-space-denied", parameters={})
async def read_space_denied(params, ctx):
    try:
        await ctx.spaces.read("sha256:" + "0" * 64, "images")
    except Exception as e:
        return _err(e)
    return {"code": "none"}

@tool(name="py-call-missing", parameters={})
async def call_missing(params, ctx):
    try:
        await ctx.call_tool("allowed-nothing", {})
    except Exception as e:
        return _err(e)
    return {"code": "none"}

@tool(name="py-bigint", parameters={})
async def big(params, ctx):
    return {"n": 2**64}
`

const parityTS = `
import { ToolError, registerTool, provider } from 'aios-sdk';

provider({ id: 'org.probe.ts', capabilities: ['CallTool(allowed-*)', 'ReadSpace(documents)'] });

const err = (e: any) => ({ code: e.code ?? e.name, message: e.message });

registerTool({ name: 'ts-read-missing', parameters: {} }, async (params: any, ctx: AgentContext) => {
  try { await ctx.spaces.read('sha256:' + '0'.repeat(64)); } catch (e) { return err(e); }
  return { code: 'none' };
});
registerTool({ name: 'ts-call-denied', parameters: {} }, async (params: any, ctx: AgentContext) => {
  try { await ctx.callTool('denied-target', {}); } catch (e) { return err(e); }
  return { code: 'none' };
});
registerTool({ name: 'ts-raise', parameters: {} }, async () => { throw new ToolError('NotFound', 'no such thing'); });
registerTool({ name: 'ts-bytes', parameters: {} }, async () => ({ b: new Uint8Array([97, 98]) }));
registerTool({ name: 'ts-unknown-code', parameters: {} }, () => { throw new ToolError('Bogus', 'odd code'); });
registerTool({ name: 'ts-data', parameters: {} }, () => { throw new ToolError('Conflict', 'taken', { k: [1, 2] }); });
registerTool({ name: 'ts-plain', parameters: {} }, () => { throw new RangeError('bad value'); });
registerTool({ name: 'ts-write-denied', parameters: {} }, async (params: any, ctx: AgentContext) => {
  try { await ctx.spaces.write('documents', 'x'); } catch (e) { return err(e); }
  return { code: 'none' };
});
registerTool({ name: 'ts-read-space-denied', parameters: {} }, async (params: any, ctx: AgentContext) => {
  try { await ctx.spaces.read('sha256:' + '0'.repeat(64), 'images'); } catch (e) { return err(e); }
  return { code: 'none' };
});
registerTool({ name: 'ts-call-missing', parameters: {} }, async (params: any, ctx: AgentContext) => {
  try { await ctx.callTool('allowed-nothing', {}); } catch (e) { return err(e); }
  return { code: 'none' };
});
registerTool({ name: 'ts-bigint', parameters: {} }, async () => ({ n: 2n ** 64n }));
`

const parityTarget = `
from aios_sdk import provider, tool
provider(id="org.probe.target")
@tool(name="denied-target", parameters={})
def target(params, ctx):
    return {"ok": True}
`

// TestSDKParity (no defect) guards the parity of the Python and the
// TypeScript SDK for the failures a tool author meets most: a space read of
// a missing object, a nested call the provider may not make, a space it may
// not read or write, a nested call of no tool, a handler raising a
// ToolError (with data, with a code outside the ABI's), any other
// exception, and a result holding bytes or an integer past uint64. Each
// gives the same ToolError code in both, and the host-made messages are
// the same but for the provider's and the tool's names.
func TestSDKParity(t *testing.T) {
	rt := newRuntime(t, nil)
	jsrt := js.New(js.Options{})
	t.Cleanup(func() { _ = jsrt.Close() })
	h := newHost(t, rt, jsrt.Loaders()...)
	for name, src := range map[string]string{"parity.py": parityPy, "parity.ts": parityTS, "target.py": parityTarget} {
		f := writeTool(t, name, src)
		if _, err := h.LoadFile(context.Background(), f, host.ProviderMeta{Source: f, Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
	}
	// outcome is the code and message of a call: its error's, or the
	// error the handler caught and returned.
	outcome := func(rtn, op string) (code, msg string, data any) {
		got, err := call(h, rtn+"-"+op, map[string]any{}, 0)
		var te *abi.ToolError
		if errors.As(err, &te) {
			return string(te.Code), te.Message, te.Data
		}
		if err != nil {
			t.Fatalf("%s-%s: %v", rtn, op, err)
		}
		m, _ := got.(map[string]any)
		code, _ = m["code"].(string)
		msg, _ = m["message"].(string)
		return code, msg, nil
	}
	same := strings.NewReplacer("org.probe.py", "P", "org.probe.ts", "P", "py-", "T-", "ts-", "T-")
	for _, c := range []struct {
		op, code  string
		sameMsg   bool
		inMessage string
	}{
		{"read-missing", "NotFound", true, "is in none of the 1 spaces"},
		{"call-denied", "CapabilityDenied", true, "CallTool(denied-target)"},
		{"write-denied", "CapabilityDenied", true, "WriteSpace(documents)"},
		{"read-space-denied", "CapabilityDenied", true, "ReadSpace(images)"},
		{"call-missing", "NotFound", true, `tool "allowed-nothing" not found`},
		{"raise", "NotFound", true, "no such thing"},
		{"data", "Conflict", true, "taken"},
		{"unknown-code", "ProviderError", false, `"Bogus" is not one of the ABI's`},
		{"plain", "ProviderError", false, "bad value (at parity."},
		{"bytes", "InvalidResult", false, "store it with ctx.spaces.write and return the ObjectId, or encode it as base64"},
		{"bigint", "InvalidResult", false, "18446744073709551616"},
	} {
		pc, pm, pd := outcome("py", c.op)
		tc, tm, td := outcome("ts", c.op)
		if pc != c.code || tc != c.code {
			t.Errorf("%s: Python gave %s (%s), TypeScript %s (%s); want %s in both", c.op, pc, pm, tc, tm, c.code)
			continue
		}
		if !strings.Contains(pm, c.inMessage) || !strings.Contains(tm, c.inMessage) {
			t.Errorf("%s: messages do not both say %q:\nPython:     %s\nTypeScript: %s", c.op, c.inMessage, pm, tm)
		}
		if c.sameMsg && same.Replace(pm) != same.Replace(tm) {
			t.Errorf("%s: messages differ:\nPython:     %s\nTypeScript: %s", c.op, pm, tm)
		}
		if c.op == "data" && (!reflect.DeepEqual(pd, td) || pd == nil) {
			t.Errorf("data: ToolError data differ: Python %#v, TypeScript %#v", pd, td)
		}
	}
}

// TestCompleteOptionsChecked: ctx.ai.complete converted its options
// with int() and float() before the host saw them, so max_tokens=3.7 asked
// for 3 tokens, max_tokens="100" and True for 100 and 1, and
// temperature="hot" raised a bare ValueError; a falsy system or model of
// another type (0) was dropped. JS refuses such options and the host's
// ai_complete check (InvalidParams naming the option) exists for exactly
// this: the options now reach it as given.
func TestCompleteOptionsChecked(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "opts.py", `
from aios_sdk import ToolError, tool

CASES = {
    "max_tokens=3.7": dict(max_tokens=3.7),
    "max_tokens='100'": dict(max_tokens="100"),
    "max_tokens=True": dict(max_tokens=True),
    "max_tokens=-1": dict(max_tokens=-1),
    "temperature='hot'": dict(temperature="hot"),
    "system=0": dict(system=0),
    "model=5": dict(model=5),
}

@tool(name="opts", parameters={})
async def opts(params, ctx):
    out = {}
    for name, kw in CASES.items():
        try:
            await ctx.ai.complete("hi", **kw)
            out[name] = "accepted"
        except ToolError as e:
            out[name] = e.code + ": " + e.message
        except Exception as e:
            out[name] = type(e).__name__ + ": " + str(e)
    return out
`)
	got, err := call(h, "opts", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	for name, want := range map[string]string{
		"max_tokens=3.7":    `"max_tokens" must be an integer`,
		"max_tokens='100'":  `"max_tokens" must be a number, not a string`,
		"max_tokens=True":   `"max_tokens" must be a number, not a boolean`,
		"max_tokens=-1":     `"max_tokens" must be an integer`,
		"temperature='hot'": `"temperature" must be a number, not a string`,
		"system=0":          `"system" must be a string`,
		"model=5":           `"model" must be a string`,
	} {
		s, _ := m[name].(string)
		if !strings.HasPrefix(s, "InvalidParams: ") || !strings.Contains(s, want) {
			t.Errorf("ctx.ai.complete(%s): %q; want InvalidParams saying %s", name, s, want)
		}
	}
}

// TestBytesStringArg: docs/python.md says a string argument given as
// another type, bytes or a number, raises ToolError InvalidParams naming
// it. A bytes one raised TypeError "bytes (bytes) at $.host.args.space is
// not JSON serializable", naming the SDK's envelope rather than the
// argument; it is InvalidParams naming the operation and the argument now,
// as a number is.
func TestBytesStringArg(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "b.py", `
from aios_sdk import ToolError, tool

@tool(name="b", parameters={})
async def b(params, ctx):
    out = {}
    for name, f in (("space_read space", lambda: ctx.spaces.read("sha256:" + "0" * 64, space=b"docs")),
                    ("space_read id", lambda: ctx.spaces.read(bytearray(b"sha256:x"))),
                    ("space_write space", lambda: ctx.spaces.write(b"docs", "x")),
                    ("ai_complete prompt", lambda: ctx.ai.complete(b"hi")),
                    ("ai_complete model", lambda: ctx.ai.complete("hi", model=b"m")),
                    ("call_tool tool", lambda: ctx.call_tool(b"x", {})),
                    ("call_tool version", lambda: ctx.call_tool("x", {}, version=memoryview(b"1")))):
        try:
            await f()
            out[name] = "accepted"
        except ToolError as e:
            out[name] = e.code + ": " + e.message
        except Exception as e:
            out[name] = type(e).__name__ + ": " + str(e)
    return out
`)
	got, err := call(h, "b", map[string]any{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range got.(map[string]any) {
		op, arg, _ := strings.Cut(name, " ")
		s, _ := v.(string)
		if want := "InvalidParams: " + op + `: "` + arg + `" must be a string, not bytes`; !strings.HasPrefix(s, want) {
			t.Errorf("%s as bytes: %q; want %q…", name, s, want)
		}
	}
}

// TestContextCallInfo: the Python ctx had no parent id (JS has
// ctx.call.parentId, the Go guest c.ParentID; the host sends it) and an
// undocumented ctx.deadline holding the frame's RFC 3339 text with
// nanoseconds, which datetime.fromisoformat of Python before 3.11 cannot
// read. ctx.parent_id is the calling call's id ("" at the top) and
// ctx.deadline the deadline in seconds since the epoch, as time.time()
// counts (JS's ctx.call.deadline is in milliseconds), or None.
func TestContextCallInfo(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "info.py", `
import time
from aios_sdk import provider, tool
provider(id="org.probe.info", capabilities=["CallTool(inner)"])

@tool(name="inner", parameters={})
def inner(params, ctx):
    return {"parent_id": ctx.parent_id, "deadline": ctx.deadline, "now": time.time(), "id": ctx.call_id}

@tool(name="outer", parameters={})
async def outer(params, ctx):
    r = await ctx.call_tool("inner", {})
    return {"inner": r, "id": ctx.call_id, "parent_id": ctx.parent_id}
`)
	got, err := call(h, "outer", map[string]any{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	in := m["inner"].(map[string]any)
	if m["parent_id"] != "" || in["parent_id"] != m["id"] || m["id"] == "" {
		t.Errorf("outer id %v parent_id %q; inner parent_id %q (want the outer's id)", m["id"], m["parent_id"], in["parent_id"])
	}
	dl, ok1 := in["deadline"].(float64)
	now, ok2 := in["now"].(float64)
	if !ok1 || !ok2 || dl <= now || dl > now+11 {
		t.Errorf("ctx.deadline %#v at time.time() %#v: want seconds since the epoch, within 10 s of now", in["deadline"], in["now"])
	}
}

// TestBytesResultSaysWhatToDo: a Python result holding bytes was
// refused as "not JSON: bytes (bytes) at $.b" and nothing more, where the
// JS SDK says what to do instead (store it with ctx.spaces.write and
// return the ObjectId, or encode it as base64); it says so too now, over
// either wire format.
func TestBytesResultSaysWhatToDo(t *testing.T) {
	for _, w := range []string{"msgpack", "json"} {
		t.Run(w, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = w }))
			loadTool(t, h, "b.py", `
from aios_sdk import tool
@tool(name="b", parameters={})
def b(params, ctx):
    return {"b": [1, bytearray(b"ab")]}
`)
			_, err := call(h, "b", map[string]any{}, 10*time.Second)
			wantCode(t, err, abi.InvalidResult, "$.b[1]", "bytearray", "store it with ctx.spaces.write and return the ObjectId, or encode it as base64")
		})
	}
}

// TestDeprecationNote: @tool had no deprecation= (since, message,
// replacement), which the ABI, the registry, the native and Go guest SDKs
// carry and the host returns to callers: a Python author could say only
// deprecated=True, never what to use instead. It is taken now, as in JS;
// given, it sets deprecated.
func TestDeprecationNote(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	p := loadTool(t, h, "dep.py", `
from aios_sdk import tool
@tool(name="old", parameters={}, deprecation={"since": "1.2.0", "message": "slow", "replacement": "new"})
def old(params, ctx):
    return {}
`)
	d := p.Describe().Tools[0]
	want := abi.Deprecation{Since: "1.2.0", Message: "slow", Replacement: "new"}
	if d.Deprecation == nil || *d.Deprecation != want || !d.Deprecated {
		t.Fatalf("deprecated %v, deprecation %+v; want true, %+v", d.Deprecated, d.Deprecation, want)
	}
}

// TestDeadlineFromContext: a Provider called directly (embedding,
// without the host's pipeline) with the deadline on its context alone ran
// the call to that deadline, but ctx.deadline was None: the frame carried
// call.Deadline only. (JS's ctx.call.deadline is the context's then.) The
// frame carries the deadline the call runs to.
func TestDeadlineFromContext(t *testing.T) {
	rt := newRuntime(t, nil)
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "dl.py", `
from aios_sdk import tool
@tool(name="dl", parameters={})
def dl(params, ctx):
    return {"deadline": ctx.deadline}
`)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	want := time.Now().Add(7 * time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), want)
	defer cancel()
	c := &abi.ToolCall{Tool: "dl", Params: map[string]any{}}
	got, err := p.Call(ctx, c, &refusingEnv{call: c})
	if err != nil {
		t.Fatal(err)
	}
	dl, ok := got.(map[string]any)["deadline"].(float64)
	if !ok || math.Abs(dl-float64(want.UnixNano())/1e9) > 0.001 {
		t.Fatalf("ctx.deadline %#v; want %v (the context's deadline)", got.(map[string]any)["deadline"], float64(want.UnixNano())/1e9)
	}
}
