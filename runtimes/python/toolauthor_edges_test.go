package python_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestKeywordOnlyHandlerParameter: a handler whose ctx (or another
// parameter) is keyword-only without a default, def a(params, *, ctx),
// loaded, and every call failed "TypeError: a() missing 1 required
// keyword-only argument: 'ctx'" naming no line, since the SDK calls a
// handler positionally. The load fails at the handler's line, showing the
// parameters as written and naming the keyword-only ones; keyword-only
// parameters with defaults are still fine.
func TestKeywordOnlyHandlerParameter(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, at, sig, kw string }{
		{"kwmode.py", "from aios_sdk import tool\n\n@tool(name='a', parameters={})\ndef a(params, *, ctx, mode):\n    return {}\n",
			"kwmode.py:3", "a(params, *, ctx, mode)", "keyword-only parameter mode has no default"},
		{"kwargs.py", "from aios_sdk import tool\n\n\n@tool(name='b', parameters={})\ndef b(*args, ctx, mode):\n    return {}\n",
			"kwargs.py:4", "b(*args, ctx, mode)", "keyword-only parameters ctx, mode have no default"},
		{"kwmethod.py", "from aios_sdk import Agent, tool\n\n@Agent(name='M')\nclass M:\n    @tool(name='m', parameters={})\n    async def m(self, params, *, mode):\n        return {}\n",
			"kwmethod.py:5", "m(self, params, *, mode)", "keyword-only parameter mode has no default"},
		{"varkw.py", "from aios_sdk import tool\n\n@tool(name='v', parameters={})\ndef v(**kw):\n    return {}\n",
			"varkw.py:3", "v(**kw)", ""},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil {
			t.Errorf("%s loaded; want a load error at %s", tc.name, tc.at)
			continue
		}
		for _, want := range []string{tc.at, tc.sig, "(params) or (params, ctx)", tc.kw} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, want)
			}
		}
	}
	// With defaults the keyword-only parameters are fine, and are left at
	// them; a keyword-only ctx is given the Context by keyword, with a
	// default or without (TestKeywordOnlyCtxIsGiven).
	for i, src := range []string{
		"from aios_sdk import tool\n@tool(name='d%d', parameters={})\ndef d(params, ctx, *, mode='x'):\n    return {'mode': mode}\n",
		"from aios_sdk import tool\n@tool(name='d%d', parameters={})\ndef d(params, *rest, mode='x'):\n    return {'mode': mode}\n",
		"from aios_sdk import tool\n@tool(name='d%d', parameters={})\ndef d(params, *, ctx):\n    return {'mode': ctx.tool[0]}\n",
		"from aios_sdk import Agent, tool\n@Agent(name='K')\nclass K:\n    @tool(name='d%d', parameters={})\n    async def d(self, params, *, ctx, mode='x'):\n        return {'mode': mode if ctx.tool else '?'}\n",
	} {
		if _, err := h.LoadFile(context.Background(), writeTool(t, fmt.Sprintf("kwok%d.py", i), fmt.Sprintf(src, i)), host.ProviderMeta{Trust: abi.System}); err != nil {
			t.Fatalf("kwok%d: %v", i, err)
		}
		got, err := call(h, fmt.Sprintf("d%d", i), map[string]any{}, 0)
		if err != nil {
			t.Fatalf("d%d: %v", i, err)
		}
		if m, _ := got.(map[string]any); m["mode"] != "x" && m["mode"] != "d" {
			t.Fatalf("d%d returned %#v", i, got)
		}
	}
}

// TestDuplicateToolNamesBothLines: two tools of one name failed the load
// with "file.py: tool 'x' is defined twice (b)", naming neither line,
// though every other load error names the line to look at. It names both
// definitions and their lines (a definition from another file of the
// folder, a base class in a helper module, by that file's name).
func TestDuplicateToolNamesBothLines(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"dupfn.py", "from aios_sdk import tool\n\n@tool(name='x')\ndef a(params):\n    return 1\n\n\n@tool(name='x')\ndef b(params):\n    return 2\n",
			[]string{"dupfn.py:8: tool 'x' is defined twice: b (line 8) and a (line 3)"}},
		{"dupmeth.py", "from aios_sdk import Agent, tool\n\n@Agent\nclass A:\n    @tool\n    def do_it(self, params):\n        return 1\n\n    @tool(name='do-it')\n    def again(self, params):\n        return 2\n",
			[]string{"dupmeth.py:", "tool 'do-it' is defined twice:", "A.do_it (line 5)", "A.again (line 9)"}},
		{"dupbase.py", "from aios_sdk import Agent, tool\nfrom dupbase_helper import Base\n\n@Agent\nclass A(Base):\n    @tool(name='x')\n    def mine(self, params):\n        return 2\n",
			[]string{"dupbase.py:6: tool 'x' is defined twice:", "A.mine (line 6)", "A.theirs (dupbase_helper.py:4)"}},
	} {
		p := writeTool(t, tc.name, tc.src)
		if tc.name == "dupbase.py" {
			helper := "from aios_sdk import tool\n\nclass Base:\n    @tool(name='x')\n    def theirs(self, params):\n        return 1\n"
			if err := os.WriteFile(filepath.Join(filepath.Dir(p), "dupbase_helper.py"), []byte(helper), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// A folder of its own (Unit), so that it may import its helper.
		_, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(p)})
		if err == nil {
			t.Errorf("%s loaded; want a load error naming both definitions", tc.name)
			continue
		}
		msg := strings.ReplaceAll(err.Error(), filepath.Dir(p)+string(filepath.Separator), "")
		for _, want := range tc.want {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, want)
			}
		}
	}
}

// netAttempts is a tool file whose tools try the network the ways a tool
// author would, each returning the exception it got.
const netAttempts = `from aios_sdk import Capability, provider, tool
import socket
CAPS
def attempt(f):
    try:
        f()
        return {"ok": True}
    except Exception as e:
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}

@tool(name="create-connection")
def create_connection(params):
    return attempt(lambda: socket.create_connection((params["host"], 80), timeout=5))

@tool(name="urlopen")
def urlopen(params):
    import urllib.request
    return attempt(lambda: urllib.request.urlopen("http://%s/" % params["host"], timeout=5))

@tool(name="own-socket")
def own_socket(params):
    return attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))

@tool(name="resolve")
def resolve(params):
    return attempt(lambda: socket.getaddrinfo(params["host"], 80))

@tool(name="pair")
def pair(params):
    a, b = socket.socketpair()
    a.sendall(b"x")
    got = b.recv(1)
    a.close()
    b.close()
    return {"ok": got == b"x"}
`

// TestNetworkRefusalSaysWhatToAskFor: a tool of a provider without a
// Network capability that connected (socket.create_connection, urllib)
// got "gaierror: [Errno -3] Temporary failure in name resolution" (the
// worker's network namespace is empty and /etc unreadable), and one that
// opened a socket a bare "PermissionError: [Errno 13] Permission denied":
// nothing said the sandbox refused it or what to ask for. Each now says
// the provider holds no Network capability and names the capability to
// ask for; a provider holding Network(host) patterns is told that only
// socket.create_connection is connected for it. socketpair still works.
func TestNetworkRefusalSaysWhatToAskFor(t *testing.T) {
	rt := newRuntime(t, nil)
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := rt.Layers()
	if !l.Seccomp && !l.NetNS {
		t.Skipf("no network isolation on this machine: %q", l.Degraded())
	}
	path := writeTool(t, "nonet.py", strings.Replace(netAttempts, "CAPS", "", 1))
	p, err := rt.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const host = "api.example.invalid"
	for _, tool := range []string{"create-connection", "urlopen", "own-socket", "resolve"} {
		r := attempt(t, p, tool, map[string]any{"host": host})
		e, _ := r["error"].(string)
		want := "Capability.Network('" + host + "')"
		if tool == "own-socket" {
			want = "Capability.Network('<host>')"
		}
		if r["ok"] != false || !strings.Contains(e, "holds no Network capability") || !strings.Contains(e, want) {
			t.Errorf("%s without Network: %v; want it to say the provider holds no Network capability and to ask for %s", tool, r, want)
		}
	}
	if r := attempt(t, p, "pair", map[string]any{}); r["ok"] != true {
		t.Errorf("socketpair without Network: %v", r)
	}

	// Network(host pattern): create_connection is the host's; a socket of
	// its own or a name it resolves is refused, saying to connect with it.
	grants, err := abi.ParseGrants([]string{"Network(" + host + ")"})
	if err != nil {
		t.Fatal(err)
	}
	bpath := writeTool(t, "brokered.py", strings.Replace(netAttempts, "CAPS", `provider(capabilities=[Capability.Network("`+host+`")])`, 1))
	bp, err := rt.Load(context.Background(), abi.Source{Path: bpath, Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	defer bp.Close()
	for _, tool := range []string{"own-socket", "resolve"} {
		if tool == "own-socket" && !l.Seccomp {
			continue // without the seccomp rule the socket opens (and reaches nothing)
		}
		r := attempt(t, bp, tool, map[string]any{"host": host})
		if e, _ := r["error"].(string); r["ok"] != false || !strings.Contains(e, "use socket.create_connection") {
			t.Errorf("%s with Network(%s): %v; want it to say to use socket.create_connection", tool, host, r)
		}
	}
	if r := attempt(t, bp, "pair", map[string]any{}); r["ok"] != true {
		t.Errorf("socketpair with Network(%s): %v", host, r)
	}
}

// TestTypeHintedHandlerSaysHintsAreNotRead: a newcomer's tool written as
// a typed function, def add(a: int, b: int) -> int, loaded with the schema
// {"type": "object"} (any params) and every call failed inside it,
// "TypeError: unsupported operand type(s) for +: 'dict' and 'Context'",
// since a handler is given (params, ctx) and the SDK reads no type hints.
// Annotations that params (a dict) or ctx can never match fail the load at
// the handler's line, saying hints are not read and how to declare the
// parameters; the annotations a handler may well carry (dict[str, Any], a
// TypedDict, Optional, Context, strings under "from __future__ import
// annotations") load and work, and the docstring's first paragraph is the
// description.
func TestTypeHintedHandlerSaysHintsAreNotRead(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, at, ann string }{
		{"typedadd.py", "from aios_sdk import tool\n\n@tool\ndef add(a: int, b: int) -> int:\n    return a + b\n", "typedadd.py:3", "parameter a as int"},
		{"typedlist.py", "from aios_sdk import tool\n\n\n@tool\ndef total(xs: list[int]) -> int:\n    return sum(xs)\n", "typedlist.py:4", "parameter xs as list[int]"},
		{"typedctx.py", "from aios_sdk import Agent, tool\n\n@Agent\nclass T:\n    @tool\n    def upper(self, params: dict, text: str) -> str:\n        return text.upper()\n", "typedctx.py:5", "parameter text as str, but it is given ctx"},
		{"typedfuture.py", "from __future__ import annotations\nfrom aios_sdk import tool\n\n@tool\nasync def neg(x: float):\n    return -x\n", "typedfuture.py:4", "parameter x as float"},
		{"typeddc.py", "import dataclasses\nfrom aios_sdk import tool\n\n@dataclasses.dataclass\nclass Point:\n    x: int\n\n@tool\ndef norm(p: Point):\n    return p.x\n", "typeddc.py:8", "parameter p as Point"},
		// A Union of types a dict never is loaded (found by p119).
		{"typedunion.py", "from typing import Union\nfrom aios_sdk import tool\n\n@tool\ndef pick(v: Union[int, str]):\n    return v\n", "typedunion.py:4", "parameter v as int | str"},
		{"typedoptional.py", "from aios_sdk import tool\n\n@tool\ndef maybe(n: int | None):\n    return n\n", "typedoptional.py:3", "parameter n as int | None"},
		{"typedfutureunion.py", "from __future__ import annotations\nfrom aios_sdk import tool\n\n@tool\ndef maybe(n: int | None):\n    return n\n", "typedfutureunion.py:4", "parameter n as int | None"},
		// Any class a dict is never an instance of (p265's left).
		{"typednt.py", "from typing import NamedTuple\nfrom aios_sdk import tool\n\nclass Pt(NamedTuple):\n    x: int\n\n@tool\ndef nx(p: Pt):\n    return p.x\n", "typednt.py:7", "parameter p as Pt"},
		{"typedmodel.py", "from aios_sdk import tool\n\nclass Model:\n    x: int = 0\n\n@tool\ndef mx(m: Model):\n    return m.x\n", "typedmodel.py:6", "parameter m as Model"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil {
			t.Errorf("%s loaded; want a load error at %s saying type hints are not read", tc.name, tc.at)
			continue
		}
		for _, want := range []string{tc.at, tc.ann, "does not read type hints", "@tool(parameters="} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, want)
			}
		}
	}
	p, err := h.LoadFile(context.Background(), writeTool(t, "typedok.py", `from __future__ import annotations
from typing import Any, Dict, Optional, TypedDict
from aios_sdk import Context, tool

class Args(TypedDict):
    a: int

@tool(parameters={"a": {"type": "integer"}})
def plain(params: dict[str, Any], ctx: Context) -> dict:
    """Doubles a.

    Longer text that is not the description."""
    return {"r": params["a"] * 2}

@tool(parameters={"a": {"type": "integer"}})
async def typed(params: Optional[Args], ctx: Optional[Context] = None) -> Dict[str, int]:
    return {"r": params["a"] + 1}
`), host.ProviderMeta{Trust: abi.System})
	if err != nil {
		t.Fatalf("annotations a handler may carry: %v", err)
	}
	// Classes a dict may be an instance of, read as classes (no
	// __future__ import): a Mapping, object, a dict subclass, a Protocol.
	if _, err := h.LoadFile(context.Background(), writeTool(t, "typedclasses.py", `import collections.abc
from typing import Mapping, Protocol
from aios_sdk import tool

class Params(dict):
    pass

class HasGet(Protocol):
    def get(self, k): ...

@tool(parameters={"a": {"type": "integer"}})
def m1(params: collections.abc.Mapping):
    return params["a"]

@tool(parameters={"a": {"type": "integer"}})
def m2(params: Mapping[str, int]):
    return params["a"]

@tool(parameters={"a": {"type": "integer"}})
def m3(params: object):
    return params["a"]

@tool(parameters={"a": {"type": "integer"}})
def m4(params: Params):
    return params["a"]

@tool(parameters={"a": {"type": "integer"}})
def m5(params: HasGet):
    return params.get("a")
`), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatalf("classes a dict may be an instance of: %v", err)
	}
	descs := map[string]string{}
	for _, d := range p.Describe().Tools {
		descs[d.Name] = d.Description
	}
	if descs["plain"] != "Doubles a." {
		t.Errorf("description from the docstring: %q, want %q", descs["plain"], "Doubles a.")
	}
	for tool, want := range map[string]int64{"plain": 6, "typed": 4} {
		got, err := call(h, tool, map[string]any{"a": 3}, 0)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if m, _ := got.(map[string]any); fmt.Sprint(m["r"]) != fmt.Sprint(want) {
			t.Errorf("%s returned %#v, want r=%d", tool, got, want)
		}
	}
}

// TestExceptionWithoutMessageNamedAlone: an exception raised without a
// message (raise NotReady(), KeyboardInterrupt) failed the call with
// "NotReady:  (at file.py:7)" and a stack beginning "NotReady: ", a
// dangling colon before nothing; it is the name alone, as Python's
// traceback prints it (and JS prints an Error without a message).
func TestExceptionWithoutMessageNamedAlone(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "nomsg.py", `from aios_sdk import tool

class NotReady(Exception):
    pass

@tool(name="not-ready")
def not_ready(params):
    raise NotReady()

@tool(name="interrupted")
def interrupted(params):
    raise KeyboardInterrupt

@tool(name="empty-text")
def empty_text(params):
    raise ValueError("")

@tool(name="with-text")
def with_text(params):
    raise ValueError("bad value")
`)
	for tool, want := range map[string]string{
		"not-ready":   "NotReady (at nomsg.py:8)",
		"interrupted": "KeyboardInterrupt (at nomsg.py:12)",
		"empty-text":  "ValueError (at nomsg.py:16)",
		"with-text":   "ValueError: bad value (at nomsg.py:20)",
	} {
		_, err := call(h, tool, map[string]any{}, 0)
		var te *abi.ToolError
		if !errors.As(err, &te) || te.Code != abi.ProviderError || te.Message != want {
			t.Errorf("%s: %v; want ProviderError %q", tool, err, want)
			continue
		}
		head := strings.TrimSuffix(want, want[strings.Index(want, " (at"):])
		if d, _ := te.Data.(map[string]any); d == nil || !strings.HasPrefix(fmt.Sprint(d["stack"]), head+"\n\tat ") {
			t.Errorf("%s: data %v; want a stack beginning %q", tool, te.Data, head+"\n\tat ")
		}
	}
}

// TestMemoryErrorNamesLine: a tool whose allocation failed at the memory
// limit got "MemoryError in tool T: out of memory (…)", the one exception
// whose message named no line. It says where, as any other exception
// does, and the worker lives on.
func TestMemoryErrorNamesLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "alloc.py", `from aios_sdk import tool

def buffer(n):
    return bytearray(n)

@tool(name="huge")
def huge(params):
    return {"n": len(buffer(10**12))}

@tool(name="ok")
def ok(params):
    return {"ok": True}
`)
	_, err := call(h, "huge", map[string]any{}, 0)
	wantCode(t, err, abi.ProviderError, "MemoryError in tool huge at alloc.py:4: out of memory (the worker's memory limit is")
	stillServes(t, h, "a MemoryError")
}

// TestImportedToolFunctionsRegistered: a provider folder whose tool file
// imports @tool functions from a module of its own (from helpers import
// fetch_title) registered only the tools defined in the tool file; the
// imported ones were left out without a word (a call: NotFound), though
// docs/python.md says module-level functions decorated with @tool are
// tools, and an @Agent class's @tool methods inherited from a helper
// module's base class count. They are tools now, served like the others.
func TestImportedToolFunctionsRegistered(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	p := writeTool(t, "tool.py", `from aios_sdk import tool
from helpers import shout
from helpers import *

@tool(name="main-tool")
def main_tool(params):
    return {"r": "main"}
`)
	helpers := `from aios_sdk import tool

@tool(name="shout")
def shout(params):
    return {"r": params["text"].upper()}

@tool(name="whisper")
def whisper(params, ctx):
    return {"r": params["text"].lower()}
`
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "helpers.py"), []byte(helpers), 0o644); err != nil {
		t.Fatal(err)
	}
	prov, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(p)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range prov.Describe().Tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "shout,whisper,main-tool" {
		t.Errorf("tools %v, want the imported shout and whisper and main-tool", names)
	}
	for tool, want := range map[string]string{"shout": "HI", "whisper": "hi", "main-tool": "main"} {
		got, err := call(h, tool, map[string]any{"text": "Hi"}, 0)
		if err != nil {
			t.Errorf("%s: %v", tool, err)
			continue
		}
		if m, _ := got.(map[string]any); m["r"] != want {
			t.Errorf("%s returned %#v, want r=%q", tool, got, want)
		}
	}
}

// TestImportedAgentClassIsTheProvider: a tool file that imports its
// @Agent class from a module of its folder (from helpers import Tools)
// failed the load "registers no tools", which it seemed to do; the
// imported class is the provider when the file defines none, and an
// @Agent class of the file deriving from an imported one is still the
// only provider (not "2 @Agent classes").
func TestImportedAgentClassIsTheProvider(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	helpers := `from aios_sdk import Agent, tool

@Agent(name="Helpers")
class Tools:
    """Tools kept in a module of their own."""

    @tool(name="NAME-base")
    def base(self, params):
        return {"r": "base"}
`
	for _, tc := range []struct {
		prefix, src string
		want        string
	}{
		{"imp", "from helpers import Tools\n", "imp-base"},
		{"sub", "from aios_sdk import Agent, tool\nfrom helpers import Tools\n\n@Agent(name='Mine')\nclass Mine(Tools):\n    @tool(name='sub-mine')\n    def mine(self, params):\n        return {'r': 'mine'}\n", "sub-base,sub-mine"},
	} {
		p := writeTool(t, "tool.py", tc.src)
		if err := os.WriteFile(filepath.Join(filepath.Dir(p), "helpers.py"), []byte(strings.ReplaceAll(helpers, "NAME", tc.prefix)), 0o644); err != nil {
			t.Fatal(err)
		}
		prov, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(p)})
		if err != nil {
			t.Errorf("%s: %v", tc.prefix, err)
			continue
		}
		var names []string
		for _, d := range prov.Describe().Tools {
			names = append(names, d.Name)
		}
		sort.Strings(names)
		if strings.Join(names, ",") != tc.want {
			t.Errorf("%s: tools %v, want %s", tc.prefix, names, tc.want)
		}
		got, err := call(h, tc.prefix+"-base", map[string]any{}, 0)
		if m, _ := got.(map[string]any); err != nil || m["r"] != "base" {
			t.Errorf("%s-base: %#v, %v", tc.prefix, got, err)
		}
	}
}

// TestShorthandDefaultNotFilledIn pins what docs/python.md now says: a
// parameter's "default" makes it optional (not in required) but is not
// filled in: a call without it gives the handler params without the key,
// so the handler reads params.get(name, default), as the seed's TS
// example reads params.max_words ?? 200.
func TestShorthandDefaultNotFilledIn(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	p := loadTool(t, h, "defaults.py", `from aios_sdk import tool

@tool(name="words", parameters={"text": {"type": "string"}, "max_words": {"type": "integer", "default": 200}})
def words(params):
    return {"keys": sorted(params), "max": params.get("max_words", 200)}
`)
	schema := p.Describe().Tools[0].Parameters
	if req := fmt.Sprint(schema["required"]); req != "[text]" {
		t.Errorf("required %s, want [text]", req)
	}
	got, err := call(h, "words", map[string]any{"text": "a b"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := got.(map[string]any); fmt.Sprint(m["keys"]) != "[text]" || fmt.Sprint(m["max"]) != "200" {
		t.Errorf("got %#v, want params with text alone and the handler's own default", got)
	}
}

// TestOsExitInToolNamed: a tool calling os._exit mid-call (which skips
// every handler, so the note a sys.exit gets could not catch it) failed
// its call with ProviderCrashed "… exited: exit status 7" and nothing
// more (os.abort: "signal: segmentation fault", as its PID namespace's
// init the worker ignores SIGABRT and abort(3) ends it with SIGSEGV). The
// crash report now quotes "tool T called os._exit(7) at file.py:LINE"
// (or os.abort()), also from a thread of the call; a child the tool forks
// exits with os._exit silently, and the worker serves on.
func TestOsExitInToolNamed(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	loadTool(t, h, "exits.py", `import os, threading
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def bye(params):
    os._exit(7)

@tool
def thread_bye(params):
    t = threading.Thread(target=lambda: os._exit(5))
    t.start()
    t.join()

@tool
def aborts(params):
    os.abort()

@tool
def child(params):
    pid = os.fork()
    if pid == 0:
        os._exit(9)
    _, status = os.waitpid(pid, 0)
    return {"status": os.waitstatus_to_exitcode(status)}
`)
	_, err := call(h, "bye", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 7", "tool bye called os._exit(7) at exits.py:10")
	stillServes(t, h, "os._exit(7)")
	_, err = call(h, "thread-bye", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "exit status 5", "tool thread-bye called os._exit(5) at exits.py:14")
	stillServes(t, h, "os._exit(5) in a thread")
	_, err = call(h, "aborts", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "tool aborts called os.abort() at exits.py:20")
	stillServes(t, h, "os.abort()")
	got, err := call(h, "child", map[string]any{}, 20*time.Second)
	if m, _ := got.(map[string]any); err != nil || fmt.Sprint(m["status"]) != "9" {
		t.Fatalf("a forked child's os._exit(9): %#v, %v", got, err)
	}
	stillServes(t, h, "a forked child's os._exit")
}

// TestGeneratorResultSaysReturnOneValue: a tool written as a generator
// (its handler yields, perhaps meant to stream) or returning a lazy
// sequence (map(...), d.keys()) failed InvalidResult "Object of type
// generator is not JSON serializable (at $)", naming the type alone. The
// message says a tool returns one value and how to collect the items, in
// both wire formats; the worker serves on.
func TestGeneratorResultSaysReturnOneValue(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = wire }))
			loadTool(t, h, "gens.py", `from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def gen(params):
    for i in range(3):
        yield {"i": i}

@tool
async def agen(params):
    yield 1

@tool
def nested(params):
    return {"items": (x * 2 for x in range(3))}

@tool
def keys(params):
    return {"keys": {"a": 1}.keys()}
`)
			for tool, want := range map[string]string{
				"gen":    "(at $); its handler yields, but a tool returns one value, not a stream: collect the items in a list, list(...)",
				"agen":   "(at $); its handler yields, but a tool returns one value, not a stream: collect the items in a list, [x async for x in ...]",
				"nested": "(at $.items); a generator is not a value: collect the items in a list, list(...)",
				"keys":   "Object of type dict_keys is not JSON serializable (at $.keys); make it a list: list(...)",
			} {
				_, err := call(h, tool, map[string]any{}, 20*time.Second)
				wantCode(t, err, abi.InvalidResult, want)
				stillServes(t, h, tool)
			}
		})
	}
}

// TestFilePermissionErrorSaysSandbox: a tool reading a file outside what
// Landlock allows (or writing one) failed "PermissionError: [Errno 13]
// Permission denied: '/etc/passwd' (at t.py:5)", which reads like a file
// mode problem; nothing said the sandbox refused it or what it allows.
// The message says so, at a call and at import alike; a PermissionError
// that is not about a file (no file name) gets no such note.
func TestFilePermissionErrorSaysSandbox(t *testing.T) {
	rt := newRuntime(t, nil)
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Landlock == 0 {
		t.Skipf("no Landlock on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	const note = "the sandbox lets a tool read (and run) only files of its own folder"
	loadTool(t, h, "files.py", `import os
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def read_passwd(params):
    return open("/etc/passwd").read()

@tool
def write_own(params):
    with open(os.path.join(os.path.dirname(__file__), "out.txt"), "w") as f:
        f.write("x")

@tool
def plain_denied(params):
    raise PermissionError("not allowed by policy")
`)
	_, err := call(h, "read-passwd", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "Permission denied: '/etc/passwd' (at files.py:10); "+note)
	_, err = call(h, "write-own", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "out.txt' (at files.py:14); "+note)
	_, err = call(h, "plain-denied", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "PermissionError: not allowed by policy (at files.py:19)")
	if strings.Contains(err.Error(), "sandbox") {
		t.Errorf("a PermissionError not about a file got the sandbox note: %v", err)
	}
	stillServes(t, h, "PermissionErrors")
	_, err = h.LoadFile(context.Background(), writeTool(t, "atimport.py", "from aios_sdk import tool\n\nSECRET = open('/etc/shadow').read()\n"), host.ProviderMeta{Trust: abi.System})
	if err == nil || !strings.Contains(err.Error(), "atimport.py:3: PermissionError while loading: [Errno 13] Permission denied: '/etc/shadow'; "+note) {
		t.Errorf("a file refused at import: %v; want the load error to say the sandbox refused it", err)
	}
}

// TestHugeTracebackKeepsWorker: a tool that raised the recursion limit
// (sys.setrecursionlimit(10**7)) and recursed until memory ran out failed
// with an exception holding some 500 000 frames; the worker's report of it
// (traceback.extract_tb made an object of, and read the source line of,
// every frame) ran out of memory in turn and the worker died
// (ProviderCrashed, exit status 1, the SDK's own traceback in the
// message), though "a failure never ends the worker". The report walks the
// traceback keeping the innermost frames only: ProviderError naming the
// line, the stack cut at 12 frames, and the provider serves on.
func TestHugeTracebackKeepsWorker(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	loadTool(t, h, "deep.py", `import sys
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def deep(params):
    sys.setrecursionlimit(10**7)
    def down(n): return down(n + 1) + 1
    return down(0)
`)
	_, err := call(h, "deep", map[string]any{}, 120*time.Second)
	wantCode(t, err, abi.ProviderError, "(at deep.py:11)")
	var te *abi.ToolError
	errors.As(err, &te)
	if d, _ := te.Data.(map[string]any); d == nil || !strings.Contains(fmt.Sprint(d["stack"]), "\n\tat down (deep.py:11)\n") || !strings.Contains(fmt.Sprint(d["stack"]), " more frames") {
		t.Errorf("data %v; want a stack of down frames cut at 12", te.Data)
	}
	stillServes(t, h, "a traceback of hundreds of thousands of frames")
}

// TestAgentConstructorFailureNamesLine: an @Agent class whose __init__
// failed (it takes an argument, or it raised) failed the load with
// "file.py: creating A(): TypeError: …", naming the file alone where
// every other load error names the line. It names the failing line of
// the file (else the __init__'s), and says the class is instantiated
// without arguments when it wanted some.
func TestAgentConstructorFailureNamesLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"initargs.py", "from aios_sdk import Agent, tool\n\n@Agent\nclass A:\n    def __init__(self, cfg):\n        self.cfg = cfg\n\n    @tool\n    def t(self, params):\n        return 1\n",
			"initargs.py:5: creating A(): TypeError: A.__init__() missing 1 required positional argument: 'cfg' (an @Agent class is instantiated once per worker, without arguments)"},
		{"initraise.py", "from aios_sdk import Agent, tool\n\ndef connect():\n    raise ConnectionError('no database')\n\n@Agent\nclass B:\n    def __init__(self):\n        self.conn = connect()\n\n    @tool\n    def u(self, params):\n        return 1\n",
			"initraise.py:4: creating B(): ConnectionError: no database"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

// TestClassLoadErrorsNameLine: the load errors about a file's classes
// and provider named the file alone ("file.py: class Loose has @tool
// methods but no @Agent(...) decorator", "2 @Agent classes", "both an
// @Agent class and aios_sdk.provider(...)"), where every other load error
// names the line. They name the first @tool method of the class, the
// second @Agent class (its statement, or before Python 3.13 its first
// method) and the provider(...) call.
func TestClassLoadErrorsNameLine(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		want      *regexp.Regexp
	}{
		{"loose.py", "from aios_sdk import Agent, tool\n\nclass Loose:\n    def helper(self):\n        pass\n\n    @tool\n    def t(self, params):\n        return 1\n",
			regexp.MustCompile(`loose\.py:7: class Loose has @tool methods but no @Agent\(\.\.\.\) decorator`)},
		{"twoagents.py", "from aios_sdk import Agent, tool\n\n@Agent\nclass A:\n    @tool\n    def a(self, params):\n        return 1\n\n@Agent\nclass B:\n    @tool\n    def b(self, params):\n        return 1\n",
			regexp.MustCompile(`twoagents\.py:(9|10|11): 2 @Agent classes \(A, B\); one provider per file`)},
		{"both.py", "from aios_sdk import Agent, tool, provider\n\nprovider(id='x.y')\n\n@Agent\nclass A:\n    @tool\n    def a(self, params):\n        return 1\n",
			regexp.MustCompile(`both\.py:3: both an @Agent class \(A\) and aios_sdk\.provider\(\.\.\.\)`)},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !tc.want.MatchString(err.Error()) {
			t.Errorf("%s: %v; want it to match %s", tc.name, err, tc.want)
		}
	}
}

// TestToolOverClassRefused: @tool over a class (callable, like a
// function) loaded, and the tool was missing without a word: the worker
// looks for tools among functions and the methods of an @Agent class.
// The load fails at the decorator's line saying what to do.
func TestToolOverClassRefused(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, src := range []string{
		"from aios_sdk import tool\n\n@tool(name='cls-tool')\nclass Handler:\n    def __init__(self, params):\n        self.p = params\n\n@tool(name='ok')\ndef ok(params):\n    return 1\n",
		"from aios_sdk import tool\n\n@tool\nclass Handler:\n    def __call__(self, params):\n        return 1\n\n@tool(name='ok')\ndef ok(params):\n    return 1\n",
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, "clstool.py", src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), "clstool.py:3: TypeError while loading: @tool decorates a function or method, not a class (Handler)") {
			t.Errorf("@tool over a class: %v; want a load error at its line", err)
		}
	}
}

// TestDefinitionNotJSONNamesLineAndPath: a tool whose @tool arguments
// hold a value that is not JSON (an enum's members as a parameter's
// values, list(Color)) failed the load "file.py: tool 'paint': its
// definition (the @tool arguments) is not JSON: Object of type Color is
// not JSON serializable", naming neither the line nor where in the
// definition. It names the @tool's line and the value's path, in both
// wire formats.
func TestDefinitionNotJSONNamesLineAndPath(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = wire }))
			_, err := h.LoadFile(context.Background(), writeTool(t, "enumparam.py", `import enum
from aios_sdk import tool

class Color(enum.Enum):
    RED = "red"

@tool(name="ok")
def ok(params):
    return 1

@tool(name="paint", parameters={"color": {"type": "string", "enum": list(Color)}})
def paint(params):
    return 1
`), host.ProviderMeta{Trust: abi.System})
			if err == nil || !strings.Contains(err.Error(), "enumparam.py:11: tool 'paint': its definition (the @tool arguments) is not JSON: ") ||
				!strings.Contains(err.Error(), "(at $.parameters.properties.color.enum[0])") {
				t.Errorf("load: %v; want the @tool's line and the path of the enum member", err)
			}
		})
	}
}

// TestProviderOptionErrorsNameBothForms: a file that described its
// provider with provider(id="Bad Id!") (or bad capabilities) was told
// "@Agent(id=...): invalid provider id …" ("@Agent capabilities: …"),
// naming a decorator the file does not use. The errors name both forms.
func TestProviderOptionErrorsNameBothForms(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"badid.py", "from aios_sdk import tool, provider\n\nprovider(id='Bad Id!')\n\n@tool(name='a')\ndef a(params):\n    return 1\n",
			`badid.py:3: @Agent(id=...) or provider(id=...): invalid provider id "Bad Id!"`},
		{"badcaps.py", "from aios_sdk import tool, provider\n\nprovider(capabilities=['ReadSpace(docs'])\n\n@tool(name='b')\ndef b(params):\n    return 1\n",
			`badcaps.py:3: @Agent(capabilities=...) or provider(capabilities=...): capability "ReadSpace(docs": missing closing parenthesis`},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

// TestUnawaitedResultUsedSaysAwait: a tool using ctx.call_tool(...) (or
// ctx.spaces.read(...)) without await as if it were the result,
// r["text"] or r.get("text"), failed "TypeError: 'HostOp' object is not
// subscriptable" (the dropped-operation warning comes only after a call
// that returns), naming neither the missing await nor the operation. The
// error names both and says what to write; awaited and .wait()ed
// operations work as before.
func TestUnawaitedResultUsedSaysAwait(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "noawait.py", `from aios_sdk import tool, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

@tool(name="inner")
def inner(params):
    return {"text": "hi"}

@tool(name="item")
def item(params, ctx):
    r = ctx.call_tool("inner", {})
    return {"t": r["text"]}

@tool(name="attr")
async def attr(params, ctx):
    r = ctx.call_tool("inner", {})
    return {"t": r.get("text")}

@tool(name="loop")
async def loop(params, ctx):
    data = ctx.spaces.read("sha256:" + "0" * 64)
    return {"n": len([b for b in data])}

@tool(name="right")
async def right(params, ctx):
    a = await ctx.call_tool("inner", {})
    b = ctx.call_tool("inner", {})
    return {"t": a["text"] + (await b)["text"]}

@tool(name="right-sync")
def right_sync(params, ctx):
    return {"t": ctx.call_tool("inner", {}).wait()["text"]}
`)
	for tool, want := range map[string]string{
		"item": "TypeError: no item 'text' of ctx.call_tool(...), which was not awaited: it returns an awaitable, not its result; write await ctx.call_tool(...) (in a plain def tool, ctx.call_tool(...).wait()) (at noawait.py:12)",
		"attr": "AttributeError: no attribute 'get' of ctx.call_tool(...), which was not awaited",
		"loop": "TypeError: no items of ctx.spaces.read(...), which was not awaited",
	} {
		_, err := call(h, tool, map[string]any{}, 20*time.Second)
		wantCode(t, err, abi.ProviderError, want)
	}
	for tool, want := range map[string]string{"right": "hihi", "right-sync": "hi"} {
		got, err := call(h, tool, map[string]any{}, 20*time.Second)
		if m, _ := got.(map[string]any); err != nil || m["t"] != want {
			t.Errorf("%s: %#v, %v; want t=%q", tool, got, err, want)
		}
	}
}

// TestNotJSONResultSaysWhatToReturn: a tool returning a datetime, a
// Decimal, a set, an enum member, a dataclass, a UUID or a path failed
// InvalidResult in json.dumps's words ("Object of type datetime is not
// JSON serializable (at $.when)"), which name the type but not what to
// return, as the message for bytes does. Each now says it, alike in both
// wire formats.
func TestNotJSONResultSaysWhatToReturn(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = wire }))
			loadTool(t, h, "objects.py", `import dataclasses, datetime, decimal, enum, pathlib, uuid
from aios_sdk import tool

class Color(enum.Enum):
    RED = "red"

@dataclasses.dataclass
class Point:
    x: int

VALUES = {
    "datetime": datetime.datetime(2020, 1, 1), "date": datetime.date(2020, 1, 1),
    "delta": datetime.timedelta(seconds=3), "decimal": decimal.Decimal("1.5"), "set": {1, 2},
    "enum": Color.RED, "dataclass": Point(1), "uuid": uuid.UUID(int=1), "path": pathlib.Path("/x"),
}

@tool
def ok(params):
    return {"ok": True}

@tool
def val(params):
    return {"v": VALUES[params["k"]]}
`)
			for k, want := range map[string]string{
				"datetime":  "Object of type datetime is not JSON serializable (at $.v); return it as text, x.isoformat()",
				"date":      "(at $.v); return it as text, x.isoformat()",
				"delta":     "(at $.v); return its seconds, x.total_seconds()",
				"decimal":   "(at $.v); return str(x) (exact) or float(x)",
				"set":       "Object of type set is not JSON serializable (at $.v); return a list, sorted(x) or list(x)",
				"enum":      "Object of type Color is not JSON serializable (at $.v); return its value, x.value",
				"dataclass": "Object of type Point is not JSON serializable (at $.v); return a dict of it, dataclasses.asdict(x)",
				"uuid":      "(at $.v); return its text, str(x)",
				"path":      "(at $.v); return its text, str(x)",
			} {
				_, err := call(h, "val", map[string]any{"k": k}, 20*time.Second)
				wantCode(t, err, abi.InvalidResult, want)
			}
			stillServes(t, h, "values JSON does not carry")
		})
	}
}

// TestLibraryToolsNotImportedAsOwn: the @tool functions and @Agent class
// a tool file imports from a module outside its folder (a library's,
// imported to be called or subclassed) are not its tools or provider, as
// before imported tools counted: only its folder's modules are its own
// (TestImportedToolFunctionsRegistered). Without the sandbox, so that the
// library's folder can be put on sys.path.
func TestLibraryToolsNotImportedAsOwn(t *testing.T) {
	off := false
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.Sandbox = &off }))
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "sharedlib.py"), []byte(`from aios_sdk import Agent, tool

@tool(name="lib-fetch")
def fetch(params):
    return {"r": "lib"}

@Agent(id="org.example.lib")
class LibTools:
    @tool(name="lib-method")
    def m(self, params):
        return {"r": "lib"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := writeTool(t, "tool.py", fmt.Sprintf(`import sys
sys.path.insert(0, %q)
from sharedlib import fetch, LibTools
from aios_sdk import tool

@tool(name="mine")
def mine(params):
    return {"r": fetch(params)["r"] + "+mine"}
`, lib))
	prov, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Trust: abi.System, Unit: filepath.Dir(p)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range prov.Describe().Tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "mine" || prov.Describe().Provider.ID == "org.example.lib" {
		t.Errorf("provider %s tools %v; want local.* with mine alone", prov.Describe().Provider.ID, names)
	}
	got, err := call(h, "mine", map[string]any{}, 20*time.Second)
	if m, _ := got.(map[string]any); err != nil || m["r"] != "lib+mine" {
		t.Errorf("mine: %#v, %v", got, err)
	}
}
