package python_test

import (
	"context"
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
    return {"u": 2**63}

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
			for _, tool := range []string{"bytes-result", "nan-result", "uint64-result"} {
				_, err := call(h, tool, map[string]any{}, 20*time.Second)
				wantCode(t, err, abi.InvalidResult)
				got[tool] = err.(*abi.ToolError).Code
			}
			// Bytes in a host call's args: a TypeError in the tool, as
			// json.dumps raises.
			_, err := call(h, "host-bytes", map[string]any{}, 20*time.Second)
			wantCode(t, err, abi.ProviderError, "TypeError", "bytes", "not JSON serializable")
			if c.want == "msgpack" {
				// The one difference: json.dumps turns a non-string key
				// into a string; MessagePack carries it and the host
				// refuses it.
				_, err := call(h, "int-key", map[string]any{}, 20*time.Second)
				wantCode(t, err, abi.InvalidResult, "not a string")
			} else {
				v, err := call(h, "int-key", map[string]any{}, 20*time.Second)
				if err != nil || !reflect.DeepEqual(v, map[string]any{"1": "a"}) {
					t.Fatalf("int-key: %#v, %v", v, err)
				}
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
