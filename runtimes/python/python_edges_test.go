package python_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A tool's failure is the call's ToolError, never the worker's end: an
// exception message with a lone surrogate (a file name decoded with
// surrogateescape), a ToolError whose data, code or message is not JSON
// text, a cancelled asyncio task, KeyboardInterrupt, an exception whose
// str() fails, and a huge message (cut as JS cuts it, at 64 KiB).
const probeErrorsSrc = `
import asyncio
from aios_sdk import tool, ToolError

@tool
def ok(params):
    return {"ok": True}

@tool
def surrogate_exc(params):
    raise ValueError("cannot open " + b"/tmp/\xff.txt".decode("utf-8", "surrogateescape"))

@tool
def surrogate_toolerror(params):
    raise ToolError("NotFound", "no \udcff here")

@tool
def bytes_data(params):
    raise ToolError("NotFound", "bytes data", data={"raw": b"\x00"})

@tool
def nan_data(params):
    raise ToolError("NotFound", "nan data", data=float("nan"))

@tool
def deep_data(params):
    d = []
    for _ in range(600):
        d = [d]
    raise ToolError("NotFound", "deep data", data=d)

@tool
def int_code(params):
    raise ToolError(404, "int code")

@tool
def int_message(params):
    raise ToolError("NotFound", 42)

@tool
async def cancelled(params, ctx):
    t = asyncio.ensure_future(asyncio.sleep(10))
    await asyncio.sleep(0)
    t.cancel()
    await t

@tool
def keyboard(params):
    raise KeyboardInterrupt("stop")

class Odd(Exception):
    def __str__(self):
        raise RuntimeError("no str")

@tool
def bad_str(params):
    raise Odd()

class Bare(ToolError):
    def __init__(self, msg):
        Exception.__init__(self, msg)

@tool
def bare_toolerror(params):
    raise Bare("no code set")

@tool
def huge_message(params):
    raise ValueError("x" * (3 << 20))

@tool
def huge_toolerror(params):
    raise ToolError("NotFound", "y" * (70 << 20))
`

func TestToolFailuresKeepWorker(t *testing.T) {
	cases := []struct {
		tool     string
		code     abi.ErrorCode
		contains []string
	}{
		{"surrogate-exc", abi.ProviderError, []string{"ValueError: cannot open /tmp/", `\udcff.txt`}},
		{"surrogate-toolerror", abi.NotFound, []string{`no \udcff here`}},
		{"bytes-data", abi.NotFound, []string{"bytes data", "data"}},
		{"nan-data", abi.NotFound, []string{"nan data", "data"}},
		{"deep-data", abi.NotFound, []string{"deep data", "data"}},
		{"int-code", abi.ProviderError, []string{"int code", `"404"`}},
		{"int-message", abi.NotFound, []string{"42"}},
		{"cancelled", abi.ProviderError, []string{"CancelledError"}},
		{"keyboard", abi.ProviderError, []string{"KeyboardInterrupt: stop"}},
		{"bad-str", abi.ProviderError, []string{"Odd"}},
		{"bare-toolerror", abi.ProviderError, []string{"no code set"}},
		{"huge-message", abi.ProviderError, []string{"ValueError: xxx", "characters cut"}},
		{"huge-toolerror", abi.NotFound, []string{"yyy", "characters cut"}},
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1; c.MemoryMB = 1024 })
			h := newHost(t, rt)
			p := loadTool(t, h, "errs.py", probeErrorsSrc).(*python.Provider)
			stillServes(t, h, "loading")
			pids := p.WorkerPIDs()
			for _, c := range cases {
				_, err := call(h, c.tool, map[string]any{}, 20*time.Second)
				wantCode(t, err, c.code, c.contains...)
				var te *abi.ToolError
				if errors.As(err, &te) && len(te.Message) > 80<<10 {
					t.Errorf("%s: a message of %d bytes reached the caller (JS cuts at 64 KiB)", c.tool, len(te.Message))
				}
				if got := p.WorkerPIDs(); len(got) != 1 || got[0] != pids[0] {
					t.Fatalf("%s: the worker %v was replaced by %v", c.tool, pids, got)
				}
			}
			stillServes(t, h, "the failures")
		})
	}
}

// ctx services' .wait() (documented for plain def tools) from several
// threads of a tool: a ThreadPoolExecutor in a plain tool, run_in_executor
// in an async one, and a thread that outlives its call. Each gets its own
// answer, and the worker's next calls are not disturbed.
const probeThreadsSrc = `
import asyncio, concurrent.futures, threading, time
from aios_sdk import tool, provider, Capability, ToolError

provider(capabilities=[Capability.CallTool("*")])

@tool
def ok(params):
    return {"ok": True}

@tool
def echo(params):
    return {"n": params.get("n")}

@tool
def threads(params, ctx):
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda i: ctx.call_tool("echo", {"n": i}).wait()["n"], range(40)))
    return {"got": got}

@tool
async def executor(params, ctx):
    loop = asyncio.get_running_loop()
    rs = await asyncio.gather(*[loop.run_in_executor(None, lambda i=i: ctx.call_tool("echo", {"n": i}).wait()) for i in range(10)])
    return {"got": [r["n"] for r in rs]}

@tool
def stray(params, ctx):
    def late():
        time.sleep(0.2)
        try:
            ctx.call_tool("echo", {"n": 1}).wait()
        except ToolError:
            pass
    threading.Thread(target=late, daemon=True).start()
    return {"ok": True}
`

func TestWaitFromThreads(t *testing.T) {
	want := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 2 })
			h := newHost(t, rt)
			loadTool(t, h, "thr.py", probeThreadsSrc)
			for _, c := range []struct {
				tool string
				n    int
			}{{"threads", 40}, {"executor", 10}, {"threads", 40}} {
				// 30 s: executor's ten nested self-calls may start up to
				// nine workers beyond the pool of 2, each a sandboxed
				// CPython start; under -race on a loaded 2-core machine
				// that once took past 10 s (a deadlock would still fail).
				v, err := call(h, c.tool, map[string]any{}, 30*time.Second)
				if err != nil {
					t.Fatalf("%s: %v", c.tool, err)
				}
				if got := v.(map[string]any)["got"]; !reflect.DeepEqual(normInts(got), want(c.n)) {
					t.Fatalf("%s: got %v", c.tool, got)
				}
				stillServes(t, h, c.tool)
			}
			for i := 0; i < 3; i++ {
				if _, err := call(h, "stray", map[string]any{}, 5*time.Second); err != nil {
					t.Fatalf("stray: %v", err)
				}
				end := time.Now().Add(400 * time.Millisecond)
				for time.Now().Before(end) {
					if _, err := call(h, "ok", map[string]any{}, 3*time.Second); err != nil {
						t.Fatalf("ok while a stray thread waits: %v", err)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

func normInts(v any) []any {
	l, _ := v.([]any)
	out := make([]any, len(l))
	for i, x := range l {
		switch n := x.(type) {
		case uint64:
			out[i] = int64(n)
		case float64:
			out[i] = int64(n)
		default:
			out[i] = x
		}
	}
	return out
}

// A tool that forks without exec (os.fork, where the child returns from
// the handler) must not leave a second process answering calls on the
// worker's pipe: the child's return ends the child.
const probeForkSrc = `
import os, time
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def forks(params):
    if os.fork() == 0:
        return {"who": "child"}
    time.sleep(0.3)
    return {"who": "parent"}

@tool
def forks_raises(params):
    if os.fork() == 0:
        raise ValueError("child")
    time.sleep(0.3)
    return {"who": "parent"}

@tool
def whoami(params):
    return {"pid": os.getpid()}
`

func TestForkedChildDoesNotServe(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1; c.Spin = 0 })
			h := newHost(t, rt)
			loadTool(t, h, "fork.py", probeForkSrc)
			first, err := call(h, "whoami", map[string]any{}, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range []string{"forks", "forks-raises"} {
				v, err := call(h, tool, map[string]any{}, 5*time.Second)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				if who := v.(map[string]any)["who"]; who != "parent" {
					t.Fatalf("%s: the call was answered by the %v", tool, who)
				}
				for i := 0; i < 20; i++ {
					got, err := call(h, "whoami", map[string]any{}, 5*time.Second)
					if err != nil {
						t.Fatalf("%s, whoami %d: %v", tool, i, err)
					}
					if !reflect.DeepEqual(got, first) {
						t.Fatalf("after %s, whoami %d was answered by %v, not the worker %v", tool, i, got, first)
					}
				}
			}
		})
	}
}

// Load errors are clear and bounded: a tool definition that is not JSON
// names the tool (not a traceback of a crashed worker), an exception at
// import with a lone surrogate or a huge message is the load error (cut at
// 64 KiB), a SyntaxError without a line has no "None:None".
func TestLoadErrorsClear(t *testing.T) {
	cases := []struct {
		name, src string
		contains  []string
	}{
		{"params_set.py", "from aios_sdk import tool\n@tool(parameters={'a': {'type': 'string', 'enum': {'x'}}})\ndef f(params): return 1\n",
			[]string{"tool 'f'", "not JSON", "set"}},
		{"desc_bytes.py", "from aios_sdk import tool\n@tool(description=b'x')\ndef f(params): return 1\n",
			[]string{"desc_bytes.py:2", "@tool f: description must be a str, got bytes"}},
		{"agent_bytes.py", "from aios_sdk import Agent, tool\n@Agent(name=b'x')\nclass A:\n    @tool\n    def f(self, params): return 1\n",
			[]string{"agent_bytes.py:2", "@Agent: name must be a str, got bytes"}},
		{"surrogate.py", "raise ValueError('bad \\udcff')\n", []string{`surrogate.py:1: ValueError while loading: bad \udcff`}},
		{"bigmsg.py", "raise ValueError('x' * (3 << 20))\n", []string{"bigmsg.py:1: ValueError while loading: xxx", "characters cut"}},
		{"nulbyte.py", "x = 1\x00\n", []string{"nulbyte.py: SyntaxError: source code string cannot contain null bytes"}},
	}
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	for _, c := range cases {
		_, err := h.LoadFile(context.Background(), writeTool(t, c.name, c.src), host.ProviderMeta{Source: c.name, Trust: abi.System})
		if err == nil {
			t.Fatalf("%s loaded", c.name)
		}
		msg := err.Error()
		for _, s := range c.contains {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: load error %.600q does not contain %q", c.name, msg, s)
			}
		}
		if strings.Contains(msg, "None:None") || strings.Contains(msg, "Traceback") || len(msg) > 80<<10 {
			t.Errorf("%s: load error of %d bytes: %.600q", c.name, len(msg), msg)
		}
	}
}

// A @tool over a callable that is not a plain function (functools.partial,
// an instance of a decorator class, a functools.wraps wrapper) is a tool,
// not silently left out; its handler gets ctx only when it takes it.
const probeCallablesSrc = `
import functools
from aios_sdk import tool

def scaled(factor, params):
    return {"v": params["x"] * factor}

double = tool(name="double", parameters={"x": {"type": "integer"}})(functools.partial(scaled, 2))

class Logged:
    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
    def __call__(self, *args):
        return self.fn(*args)

@tool(name="logged")
@Logged
def logged(params):
    return {"ok": True}

@tool(name="logged-ctx")
@Logged
def logged_ctx(params, ctx):
    return {"tool": ctx.tool}
`

func TestCallableTools(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "callables.py", probeCallablesSrc)
	names := map[string]bool{}
	for _, d := range p.Describe().Tools {
		names[d.Name] = true
	}
	for _, n := range []string{"double", "logged", "logged-ctx"} {
		if !names[n] {
			t.Fatalf("tool %s was left out: %v", n, names)
		}
	}
	for tool, want := range map[string]any{
		"double":     map[string]any{"v": int64(6)},
		"logged":     map[string]any{"ok": true},
		"logged-ctx": map[string]any{"tool": "logged-ctx"},
	} {
		v, err := call(h, tool, map[string]any{"x": 3}, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if m, ok := v.(map[string]any); ok {
			if x, ok := m["v"].(uint64); ok {
				m["v"] = int64(x)
			}
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("%s: %#v, want %#v", tool, v, want)
		}
	}
}

// An object neither format carries (a datetime, a set, a Decimal) is
// refused in the same words in both formats: as a result (InvalidResult)
// and in a host call's arguments (TypeError in the tool).
const probeObjectsSrc = `
import datetime, decimal
from aios_sdk import tool, provider, Capability

provider(capabilities=[Capability.CallTool("*")])

VALUES = {"datetime": lambda: datetime.datetime(2020, 1, 1), "set": lambda: {1}, "decimal": lambda: decimal.Decimal("1.5")}

@tool
def echo(params):
    return params

@tool
def val(params):
    return {"v": [VALUES[params["k"]]()]}

@tool
def via(params, ctx):
    return ctx.call_tool("echo", {"v": VALUES[params["k"]]()}).wait()
`

func TestObjectErrorsAlike(t *testing.T) {
	got := map[string][]string{}
	for _, wire := range []string{"msgpack", "json"} {
		rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
		h := newHost(t, rt)
		loadTool(t, h, "objs.py", probeObjectsSrc)
		for _, k := range []string{"datetime", "set", "decimal"} {
			for _, tool := range []string{"val", "via"} {
				_, err := call(h, tool, map[string]any{"k": k}, 5*time.Second)
				got[tool+" "+k] = append(got[tool+" "+k], fmt.Sprint(err))
			}
		}
	}
	for k, v := range got {
		if v[0] != v[1] || !strings.Contains(v[0], "is not JSON serializable") {
			t.Errorf("%s:\n msgpack: %s\n json:    %s", k, v[0], v[1])
		}
	}
}

// A tool calling another tool of its own provider (the docs' word-count →
// pdf-extract, when both live in one file) does not deadlock the pool: the
// worker that waits for the nested call cannot serve it, so with every
// worker busy in such calls (or pool_size 1) the nested calls used to wait
// for a free worker until the deadline. The pool keeps its size afterwards.
const probeSelfNestSrc = `
import time
from aios_sdk import tool, provider, Capability
provider(capabilities=[Capability.CallTool("*")])

@tool
def inner(params):
    time.sleep(0.05)
    return {"ok": True}

@tool
def outer(params, ctx):
    return ctx.call_tool("inner", {}).wait()

@tool
async def fan(params, ctx):
    import asyncio
    rs = await asyncio.gather(*[ctx.call_tool("inner", {}) for _ in range(20)])
    return {"n": len(rs)}
`

func TestSelfNestedCallsDoNotDeadlock(t *testing.T) {
	for _, size := range []int{1, 2} {
		t.Run(fmt.Sprint("pool", size), func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.PoolSize = size })
			h := newHost(t, rt)
			p := loadTool(t, h, "nest.py", probeSelfNestSrc).(*python.Provider)
			errs := make(chan error, 4)
			for i := 0; i < 4; i++ {
				go func() {
					_, err := call(h, "outer", map[string]any{}, 8*time.Second)
					errs <- err
				}()
			}
			for i := 0; i < 4; i++ {
				if err := <-errs; err != nil {
					t.Fatalf("outer: %v", err)
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for len(p.WorkerPIDs()) > size && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := len(p.WorkerPIDs()); n > size {
				t.Fatalf("%d workers left in a pool of %d", n, size)
			}
			for i := 0; i < 3; i++ {
				if _, err := call(h, "outer", map[string]any{}, 8*time.Second); err != nil {
					t.Fatalf("outer after the burst: %v", err)
				}
			}
			// More nested calls at once than workers may be started beyond
			// the pool: the rest take the places of those that finish.
			if _, err := call(h, "fan", map[string]any{}, 15*time.Second); err != nil {
				t.Fatalf("fan: %v", err)
			}
		})
	}
}

// asyncio imported inside a tool's coroutine (not at module level) works on
// the worker's first such call too: asyncio.gather and asyncio.sleep find
// the worker's loop running (they used to get another loop: "got Future
// attached to a different loop", or "no running event loop").
const probeLazyAsyncioSrc = `
from aios_sdk import tool, provider, Capability
provider(capabilities=[Capability.CallTool("*")])

@tool
def inner(params):
    return {"ok": True}

@tool
async def fan(params, ctx):
    import asyncio
    rs = await asyncio.gather(*[ctx.call_tool("inner", {}) for _ in range(3)])
    return {"n": len(rs)}

@tool
async def nap(params, ctx):
    import asyncio
    await asyncio.sleep(0.01)
    return {"n": 1}
`

func TestLazyAsyncioImport(t *testing.T) {
	for _, tool := range []string{"fan", "nap"} {
		t.Run(tool, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "lazy.py", probeLazyAsyncioSrc)
			for i := 0; i < 2; i++ {
				if _, err := call(h, tool, map[string]any{}, 10*time.Second); err != nil {
					t.Fatalf("%s, call %d: %v", tool, i, err)
				}
			}
		})
	}
}

// ctx.log of text with lone surrogates (a file name decoded with
// surrogateescape) logs it with backslash escapes, as the logging module
// would, instead of raising UnicodeEncodeError in the tool.
const probeLogSurrogateSrc = `
from aios_sdk import tool

@tool
async def logs(params, ctx):
    name = b"/tmp/\xff.txt".decode("utf-8", "surrogateescape")
    await ctx.log("cannot open", name)
    return {"ok": True}
`

func TestLogSurrogates(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire })
			h := newHost(t, rt)
			loadTool(t, h, "logs.py", probeLogSurrogateSrc)
			if _, err := call(h, "logs", map[string]any{}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// spareSrc names each worker process by a random token (in a PID
// namespace every worker is PID 1).
const spareSrc = `
import os
from aios_sdk import tool, provider, Capability
provider(capabilities=[Capability.CallTool("*")])
ME = os.urandom(8).hex()

@tool
def pid(params):
    return {"pid": ME}

@tool
def outer(params, ctx):
    return {"outer": ME, "inner": ctx.call_tool("pid", {}).wait()["pid"]}
`

// TestSpareWorkersReused: a worker started beyond the pool for a nested
// self call serves the next such call (no new worker process per call)
// and is stopped once none came for a while.
func TestSpareWorkersReused(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	p := loadTool(t, h, "spare.py", spareSrc).(*python.Provider)
	inner := func() (outer, inner any) {
		t.Helper()
		v, err := call(h, "outer", map[string]any{}, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		if m["outer"] == m["inner"] {
			t.Fatalf("the nested call ran on its caller's worker: %v", m)
		}
		return m["outer"], m["inner"]
	}
	_, first := inner()
	for i := 0; i < 3; i++ {
		if _, again := inner(); again != first {
			t.Fatalf("call %d: the nested call ran on worker %v, not on the spare %v", i, again, first)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(p.WorkerPIDs()) > 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(p.WorkerPIDs()); n != 1 {
		t.Fatalf("%d workers live long after the nested calls, want the pool's 1", n)
	}
	if _, later := inner(); later == first {
		t.Fatalf("the spare %v still served after it should have been stopped", first)
	}
}
