package python_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/python"
)

const wireTools = `
from aios_sdk import Capability, ToolError, provider, tool

provider(id="org.test.wire", capabilities=[Capability.ReadSpace("images"), Capability.WriteSpace("images"), Capability.CallTool("*")])

@tool(name="echo", parameters={"type": "object"})
def echo(params):
    return params

@tool(name="values", parameters={"type": "object"})
def values(params):
    return {"max": 2**63 - 1, "min": -2**63, "zero": 0, "f": 0.1, "whole_f": 2.0, "neg0": -0.0,
            "tiny": 1e-300, "huge": 1.7976931348623157e308, "s": "h\u00e9llo \u2713 \U0001F600 \u2028 \x00",
            "t": True, "n": None, "l": [1, [2, [3, []]], {}], "tuple": (1, "a"), "d": {"": 1, "\u03ba": {}}}

@tool(name="msgpack-env", parameters={"type": "object"})
def msgpack_env(params):
    import sys
    m = sys.modules.get("msgpack")
    return {"file": getattr(m, "__file__", None), "c": m is not None and m.Packer.__module__ == "msgpack._cmsgpack",
            "prefix": sys.prefix, "dist_on_path": "/usr/lib/python3/dist-packages" in sys.path}

@tool(name="bytes-result", parameters={"type": "object"})
def bytes_result(params):
    return {"b": b"\x00\x01"}

@tool(name="nan-result", parameters={"type": "object"})
def nan_result(params):
    return {"f": [1.0, float("nan")]}

@tool(name="uint64-result", parameters={"type": "object"})
def uint64_result(params):
    return {"u": 2**63, "max": 2**64 - 1}

@tool(name="bigint-result", parameters={"type": "object"})
def bigint_result(params):
    return {"u": 2**64}

@tool(name="int-key", parameters={"type": "object"})
def int_key(params):
    return {1: "a"}

@tool(name="spaces", parameters={"type": "object"})
async def spaces(params, ctx):
    data = b"\x00\xff\x80 raw bytes"
    oid = await ctx.spaces.write("images", data)
    obj = await ctx.spaces.read(oid, "images")
    return {"same": bytes(obj) == data, "len": len(obj), "id_is_str": isinstance(oid, str)}

@tool(name="nested-call", parameters={"type": "object"})
async def nested_call(params, ctx):
    return await ctx.call_tool("echo", params)

@tool(name="host-bytes", parameters={"type": "object"})
async def host_bytes(params, ctx):
    try:
        await ctx.call_tool("echo", {"b": b"x"})
    except ToolError as e:
        return {"refused": e.code}
    except TypeError as e:
        return {"refused": "TypeError"}
    return {"refused": False}
`

// wireValues are params that must come back from echo unchanged in both
// formats: ints stay ints, floats floats (3.0 too), strings exact.
func wireValues() map[string]any {
	return map[string]any{
		"unicode":   "héllo ✓ 😀 \u2028 \x00 \"q\" \\ end",
		"empty_s":   "",
		"int":       int64(42),
		"neg":       int64(-7),
		"max":       int64(math.MaxInt64),
		"min":       int64(math.MinInt64),
		"big":       int64(1<<53 + 1),
		"float":     1.5,
		"whole_f":   3.0,
		"tiny":      1e-300,
		"huge":      1.7976931348623157e308,
		"true":      true,
		"false":     false,
		"null":      nil,
		"list":      []any{int64(1), "a", nil, []any{}, map[string]any{}},
		"empty_map": map[string]any{},
		"empty_l":   []any{},
		"nested":    map[string]any{"a": map[string]any{"b": map[string]any{"c": []any{map[string]any{"d": "e"}}}}},
		"keys":      map[string]any{"κλειδί": int64(1), "": int64(2), "with\"quote": int64(3)},
	}
}

// TestWireNegotiation: workers speak MessagePack by default and JSON under
// runtimes.python.wire: json; a worker offering only json gets json under
// the msgpack preference; every value comes back the same either way.
func TestWireNegotiation(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/msgpack/__init__.py"); err != nil {
		t.Log("python3-msgpack is not installed (scripts/deps.sh installs it); the msgpack cases fail")
	}
	results := map[string]map[string]any{}
	for _, c := range []struct {
		name, pref string
		jsonOnly   bool
		want       string
	}{
		{"default", "", false, "msgpack"},
		{"json-switch", "json", false, "json"},
		{"json-only-worker", "msgpack", true, "json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = c.pref; pc.PoolSize = 2 })
			if c.jsonOnly {
				python.OfferJSONOnly(rt)
			}
			h := newHost(t, rt)
			p := loadTool(t, h, "wire_tools.py", wireTools).(*python.Provider)
			got := map[string]any{}
			for _, tool := range []string{"echo", "values", "spaces", "nested-call"} {
				v, err := call(h, tool, wireValues(), 20*time.Second)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				got[tool] = v
			}
			for _, tool := range []string{"bytes-result", "nan-result", "bigint-result"} {
				_, err := call(h, tool, map[string]any{}, 20*time.Second)
				wantCode(t, err, abi.InvalidResult)
				got[tool] = err.(*abi.ToolError).Code
			}
			// Integers above int64 are exact up to 2**64-1 (uint64) in both.
			if v, err := call(h, "uint64-result", map[string]any{}, 20*time.Second); err != nil || !reflect.DeepEqual(v, map[string]any{"u": uint64(1) << 63, "max": uint64(math.MaxUint64)}) {
				t.Fatalf("uint64-result: %#v, %v", v, err)
			}
			// Bytes in a host call's args: a TypeError in the tool, as
			// json.dumps raises, which the tool catches (it escaped the
			// tool's try when awaited without asyncio's loop).
			if v, err := call(h, "host-bytes", map[string]any{}, 20*time.Second); err != nil || !reflect.DeepEqual(v, map[string]any{"refused": "TypeError"}) {
				t.Fatalf("host-bytes: %#v, %v; want the tool to catch the TypeError", v, err)
			}
			// A non-string key becomes json.dumps's string in both
			// (TestWireEdges has the rest of the edges).
			if v, err := call(h, "int-key", map[string]any{}, 20*time.Second); err != nil || !reflect.DeepEqual(v, map[string]any{"1": "a"}) {
				t.Fatalf("int-key: %#v, %v", v, err)
			}
			// The msgpack module the worker speaks with, in the sandbox: its
			// C extension; Debian's package for another interpreter comes
			// without the rest of dist-packages on sys.path.
			v, err := call(h, "msgpack-env", map[string]any{}, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			me := v.(map[string]any)
			if c.want == "msgpack" {
				if me["c"] != true {
					t.Fatalf("msgpack without its C extension: %#v", me)
				}
				if f, _ := me["file"].(string); strings.HasPrefix(f, "/usr/lib/python3/dist-packages/") && me["prefix"] != "/usr" && me["dist_on_path"] != false {
					t.Fatalf("the system's dist-packages came onto sys.path with msgpack: %#v", me)
				}
			} else if c.jsonOnly && me["file"] != nil {
				t.Fatalf("a json-only worker imported msgpack: %#v", me)
			}
			if f := p.WireFormats(); len(f) != 2 || f[0] != c.want || f[1] != c.want {
				t.Fatalf("wire formats %q, want two %s", f, c.want)
			}
			if pids := p.WorkerPIDs(); len(pids) != 2 {
				t.Fatalf("workers %v: a refused result must not cost the worker", pids)
			}
			results[c.name] = got
		})
	}
	for _, other := range []string{"json-switch", "json-only-worker"} {
		if d := valueDiff("$", results["default"], results[other]); d != "" {
			t.Fatalf("msgpack and %s disagree: %s", other, d)
		}
	}
	r := results["default"]
	if !reflect.DeepEqual(r["echo"], wireValues()) || !reflect.DeepEqual(r["nested-call"], wireValues()) {
		t.Fatalf("echo changed the values:\n got %#v\nwant %#v", r["echo"], wireValues())
	}
	wantValues := map[string]any{"max": int64(math.MaxInt64), "min": int64(math.MinInt64), "zero": int64(0), "f": 0.1, "whole_f": 2.0,
		"neg0": math.Copysign(0, -1), "tiny": 1e-300, "huge": 1.7976931348623157e308, "s": "héllo ✓ 😀 \u2028 \x00",
		"t": true, "n": nil, "l": []any{int64(1), []any{int64(2), []any{int64(3), []any{}}}, map[string]any{}},
		"tuple": []any{int64(1), "a"}, "d": map[string]any{"": int64(1), "κ": map[string]any{}}}
	if !reflect.DeepEqual(r["values"], wantValues) {
		t.Fatalf("values:\n got %#v\nwant %#v", r["values"], wantValues)
	}
	if want := map[string]any{"same": true, "len": int64(13), "id_is_str": true}; !reflect.DeepEqual(r["spaces"], want) {
		t.Fatalf("spaces: %#v", r["spaces"])
	}
}

const edgeTools = `
from aios_sdk import Capability, provider, tool

provider(id="org.test.edges", capabilities=[Capability.CallTool("echo-params")])

KEYS = {
    "none-key": lambda: {None: 1},
    "int-key": lambda: {1: "a", -7: "b", 0: "c"},
    "bool-key": lambda: {True: 1, False: 0},
    "float-key": lambda: {1.5: "a", 2.0: "b", 1e16: "c", 1e-05: "d", 0.0001: "e", -0.0: "f", 1e15: "g", 0.1: "h", 1.7976931348623157e308: "i"},
    "uint64-key": lambda: {2**63: "a", 2**64 - 1: "b"},
    "big-int-key": lambda: {2**70: "a", -2**63 - 1: "b"},
    "nested-keys": lambda: {"a": [{None: {1: [True, {2.5: None}]}}], "b": ({3: 4},)},
    "same-key": lambda: {1: "int", "1": "str"},
    "tuple-key": lambda: {"a": {(1, 2): "x"}},
    "nan-key": lambda: {float("nan"): 1},
    "inf-key": lambda: {"a": [{float("-inf"): 1}]},
    "frozenset-key": lambda: {frozenset(): 1},
}

@tool(name="key", parameters={"type": "object"})
def key(params):
    return KEYS[params["case"]]()

@tool(name="deep", parameters={"type": "object"})
def deep(params):
    v = {} if params.get("dict") else []
    for _ in range(params["n"]):
        v = {"a": v} if params.get("dict") else [v]
    return {"deep": v} if params.get("wrapped") else v

@tool(name="ok", parameters={"type": "object"})
def ok(params):
    return {"ok": True}

@tool(name="host-keys", parameters={"type": "object"})
async def host_keys(params, ctx):
    # A host call whose arguments have keys that are not strings.
    return await ctx.call_tool("echo-params", {"x": KEYS[params["case"]]()})
`

// echoParams is another provider's tool that host-keys calls (its own
// worker: the edges provider has one, busy with the calling tool).
const echoParams = `
from aios_sdk import provider, tool

provider(id="org.test.echo-params")

@tool(name="echo-params", parameters={"type": "object"})
def echo_params(params):
    return params
`

// TestWireEdges: the same value returned over MessagePack and over JSON
// gives the same result (the value, or the same error and message), and a
// refused value does not cost the worker. Dict keys that are not strings
// become json.dumps's strings (None "null", True "true", ints in decimal,
// floats as repr); keys json.dumps refuses are InvalidResult in its words.
// A value nested deeper than 512 levels (the host's limit: the result is
// level 0) is InvalidResult; 512 levels pass in both (the MessagePack
// packer alone stops at 510 counting the envelope, the JSON encoder at
// the recursion limit, about 990; before, 513–990 ended a JSON worker).
func TestWireEdges(t *testing.T) {
	nested := func(n int, dict bool) any {
		var v any = []any{}
		if dict {
			v = map[string]any{}
		}
		for range n {
			if dict {
				v = map[string]any{"a": v}
			} else {
				v = []any{v}
			}
		}
		return v
	}
	type result struct {
		v    any
		code abi.ErrorCode
		msg  string
	}
	type edge struct {
		name   string
		params map[string]any
		want   any    // the value both formats return, or
		err    string // the InvalidResult message both give
	}
	deepErr := "tool deep returned a value nested deeper than 512 levels (the host's limit); return it flatter or as a string"
	edges := []edge{
		{"none-key", map[string]any{"case": "none-key"}, map[string]any{"null": int64(1)}, ""},
		{"int-key", map[string]any{"case": "int-key"}, map[string]any{"1": "a", "-7": "b", "0": "c"}, ""},
		{"bool-key", map[string]any{"case": "bool-key"}, map[string]any{"true": int64(1), "false": int64(0)}, ""},
		{"float-key", map[string]any{"case": "float-key"}, map[string]any{"1.5": "a", "2.0": "b", "1e+16": "c", "1e-05": "d", "0.0001": "e",
			"-0.0": "f", "1000000000000000.0": "g", "0.1": "h", "1.7976931348623157e+308": "i"}, ""},
		{"uint64-key", map[string]any{"case": "uint64-key"}, map[string]any{"9223372036854775808": "a", "18446744073709551615": "b"}, ""},
		{"big-int-key", map[string]any{"case": "big-int-key"}, map[string]any{"1180591620717411303424": "a", "-9223372036854775809": "b"}, ""},
		{"nested-keys", map[string]any{"case": "nested-keys"}, map[string]any{
			"a": []any{map[string]any{"null": map[string]any{"1": []any{true, map[string]any{"2.5": nil}}}}},
			"b": []any{map[string]any{"3": int64(4)}}}, ""},
		{"same-key", map[string]any{"case": "same-key"}, map[string]any{"1": "str"}, ""},
		{"tuple-key", map[string]any{"case": "tuple-key"}, nil, "tool key returned a value that is not JSON: keys must be str, int, float, bool or None, not tuple (a key of the dict at $.a)"},
		{"nan-key", map[string]any{"case": "nan-key"}, nil, "tool key returned a value that is not JSON: Out of range float values are not JSON compliant (a key of the dict at $)"},
		{"inf-key", map[string]any{"case": "inf-key"}, nil, "tool key returned a value that is not JSON: Out of range float values are not JSON compliant (a key of the dict at $.a[0])"},
		{"frozenset-key", map[string]any{"case": "frozenset-key"}, nil, "tool key returned a value that is not JSON: keys must be str, int, float, bool or None, not frozenset (a key of the dict at $)"},
	}
	// The same conversion for a host call's arguments (the keys of
	// ctx.call_tool's params).
	edges = append(edges,
		edge{"host-int-key", map[string]any{"case": "int-key", "host": true}, map[string]any{"x": map[string]any{"1": "a", "-7": "b", "0": "c"}}, ""},
		edge{"host-nested-keys", map[string]any{"case": "nested-keys", "host": true}, map[string]any{"x": map[string]any{
			"a": []any{map[string]any{"null": map[string]any{"1": []any{true, map[string]any{"2.5": nil}}}}},
			"b": []any{map[string]any{"3": int64(4)}}}}, ""})
	for _, n := range []int{100, 509, 510, 511, 512} {
		edges = append(edges, edge{fmt.Sprintf("deep-%d", n), map[string]any{"n": int64(n)}, nested(n, false), ""})
	}
	edges = append(edges,
		edge{"deep-dict-512", map[string]any{"n": int64(512), "dict": true}, nested(512, true), ""},
		edge{"deep-wrapped-511", map[string]any{"n": int64(511), "wrapped": true}, map[string]any{"deep": nested(511, false)}, ""})
	for _, n := range []int{513, 520, 700, 900, 1200, 100000} {
		edges = append(edges, edge{fmt.Sprintf("deep-%d", n), map[string]any{"n": int64(n)}, nil, deepErr})
	}
	edges = append(edges,
		edge{"deep-dict-513", map[string]any{"n": int64(513), "dict": true}, nil, deepErr},
		edge{"deep-wrapped-512", map[string]any{"n": int64(512), "wrapped": true}, nil, deepErr})

	results := map[string]map[string]result{}
	for _, wf := range []string{"msgpack", "json"} {
		t.Run(wf, func(t *testing.T) {
			rt := newRuntime(t, func(pc *python.Config) { pc.Wire = wf; pc.PoolSize = 1 })
			h := newHost(t, rt)
			p := loadTool(t, h, "edge_tools.py", edgeTools).(*python.Provider)
			loadTool(t, h, "echo_params.py", echoParams)
			if f := p.WireFormats(); len(f) != 1 || f[0] != wf {
				t.Fatalf("wire formats %q, want %s", f, wf)
			}
			pids := p.WorkerPIDs()
			got := map[string]result{}
			for _, e := range edges {
				tool := "key"
				if e.params["case"] == nil {
					tool = "deep"
				} else if e.params["host"] == true {
					tool = "host-keys"
				}
				v, err := call(h, tool, e.params, 20*time.Second)
				r := result{v: v}
				if err != nil {
					var te *abi.ToolError
					if !errors.As(err, &te) {
						t.Fatalf("%s: %v", e.name, err)
					}
					r = result{code: te.Code, msg: te.Message}
				}
				got[e.name] = r
				if e.err != "" {
					if r.code != abi.InvalidResult || r.msg != e.err {
						t.Errorf("%s: %v %q %.200v, want InvalidResult %q", e.name, r.code, r.msg, r.v, e.err)
					}
				} else if err != nil {
					t.Errorf("%s: %v", e.name, err)
				} else if d := valueDiff("$", v, e.want); d != "" {
					t.Errorf("%s: %.300s", e.name, d)
				}
				// The worker lives on and serves the next call.
				if now := p.WorkerPIDs(); !reflect.DeepEqual(now, pids) {
					t.Fatalf("%s: workers %v, were %v: a refused result must not cost the worker", e.name, now, pids)
				}
				stillServes(t, h, e.name)
			}
			results[wf] = got
		})
	}
	for _, e := range edges {
		a, b := results["msgpack"][e.name], results["json"][e.name]
		if a.code != b.code || a.msg != b.msg {
			t.Errorf("%s: msgpack %s %q, json %s %q", e.name, a.code, a.msg, b.code, b.msg)
		} else if d := valueDiff("$", a.v, b.v); d != "" {
			t.Errorf("%s: msgpack and json disagree: %.300s", e.name, d)
		}
	}
}

// fakeSDK writes an aios_sdk whose worker writes frame (with its length)
// as its first message and then waits.
func fakeSDK(t *testing.T, frame string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "aios_sdk")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	worker := "import os, time\nFRAME = " + pyBytes(frame) + "\ndef main():\n    os.write(1, len(FRAME).to_bytes(4, 'big') + FRAME)\n    time.sleep(30)\n"
	for name, src := range map[string]string{"__init__.py": "", "_worker.py": worker} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pyBytes(s string) string {
	var b strings.Builder
	b.WriteString("b'")
	for i := 0; i < len(s); i++ {
		b.WriteString("\\x")
		b.WriteString("0123456789abcdef"[s[i]>>4 : s[i]>>4+1])
		b.WriteString("0123456789abcdef"[s[i]&15 : s[i]&15+1])
	}
	b.WriteString("'")
	return b.String()
}

// TestWireBadHello: a worker that speaks before its hello (an SDK older
// than the host), one offering nothing the host reads, or one writing
// MessagePack first fails the load with an error saying so, at once.
func TestWireBadHello(t *testing.T) {
	for _, c := range []struct{ name, frame, want string }{
		{"register-first", `{"v":1,"kind":"register","register":{"format":1}}`, `sent a "register" message before its hello: it predates wire format negotiation`},
		{"cbor-only", `{"v":1,"kind":"hello","formats":["cbor"]}`, `offers the wire formats ["cbor"], none of which this host reads (it reads msgpack and json)`},
		{"version-2", `{"v":2,"kind":"hello","formats":["json"]}`, `hello has version 2; this host speaks version 1`},
		{"msgpack-first", "\x82\xa1v\x01\xa4kind\xa5hello", `first message is not a JSON hello (0x82a17601`},
		{"not-a-map", `[1,2]`, `first message is not a JSON hello ([1,2])`},
	} {
		t.Run(c.name, func(t *testing.T) {
			sdk := fakeSDK(t, c.frame)
			rt := newRuntime(t, func(pc *python.Config) { pc.SDKPath = sdk })
			h := newHost(t, rt)
			start := time.Now()
			_, err := h.LoadFile(context.Background(), writeTool(t, "w.py", "pass\n"), host.ProviderMeta{Trust: abi.System})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "w.py") {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Fatalf("the load took %v", d)
			}
		})
	}
}

// TestWireDebugFrames: with debug logging on, every frame is logged
// (readable JSON in json mode, hex in msgpack mode); without it, none.
func TestWireDebugFrames(t *testing.T) {
	for _, c := range []struct {
		wire  string
		level slog.Level
		want  string
	}{
		{"json", slog.LevelDebug, `\"kind\":\"call\"`},
		{"msgpack", slog.LevelDebug, `format=msgpack`},
		{"json", slog.LevelInfo, ""},
	} {
		t.Run(c.wire+"-"+c.level.String(), func(t *testing.T) {
			var logs testutil.SyncBuffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: c.level}))
			pc := python.DefaultConfig()
			pc.PoolSize, pc.Wire = 1, c.wire
			rt, err := python.New(pc, log)
			if err != nil {
				t.Fatal(err)
			}
			cfg := testConfig(t)
			h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{rt}, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close() })
			loadTool(t, h, "wire_tools.py", wireTools)
			if _, err := call(h, "echo", map[string]any{"marker": "m-1"}, 20*time.Second); err != nil {
				t.Fatal(err)
			}
			out := logs.String()
			if c.want == "" {
				if strings.Contains(out, "wire frame") {
					t.Fatalf("frames logged at %v:\n%s", c.level, out)
				}
				return
			}
			for _, w := range []string{"wire frame", c.want, "dir=in", "dir=out", `kind\":\"hello`} {
				if !strings.Contains(out, w) {
					t.Fatalf("no %q in:\n%s", w, out)
				}
			}
		})
	}
}

// valueDiff describes the first difference between a and b (types
// included: int64 3 and float64 3 differ), or "".
func valueDiff(path string, a, b any) string {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return fmt.Sprintf("%s: %T %#v vs %T %#v", path, a, a, b, b)
	}
	switch x := a.(type) {
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d keys vs %d", path, len(x), len(y))
		}
		for k, v := range x {
			if d := valueDiff(path+"."+k, v, y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d items vs %d", path, len(x), len(y))
		}
		for i := range x {
			if d := valueDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	case float64:
		if x != b.(float64) || math.Signbit(x) != math.Signbit(b.(float64)) {
			return fmt.Sprintf("%s: %v vs %v", path, x, b)
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %#v vs %#v", path, a, b)
	}
	return ""
}
