package python_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/python"
)

// misbehaving is a provider whose tools misbehave in every way a worker can.
const misbehaving = `import os, sys
from aios_sdk import Agent, tool

@Agent(id="org.test.misbehaving", name="Misbehaving")
class Misbehaving:
    @tool(name="ok")
    def ok(self, params):
        print("print() goes to stderr, not into the protocol")
        return {"ok": True}

    @tool(name="spin")
    def spin(self, params):
        while True:
            pass

    @tool(name="grow")
    def grow(self, params):
        hoard = []
        while True:
            hoard.append(bytearray(8 << 20))

    @tool(name="huge")
    def huge(self, params):
        return {"n": len(bytearray(4 << 30))}

    @tool(name="garbage")
    def garbage(self, params):
        # The protocol channel is a private fd the tool does not know: spray them all.
        for fd in range(3, 16):
            try:
                os.write(fd, b"\x00\x00\x00\x07garbage")
            except OSError:
                pass
        return {"ok": True}

    @tool(name="exit")
    def exit(self, params):
        os._exit(7)

    @tool(name="sysexit")
    def sysexit(self, params):
        sys.exit(3)

    @tool(name="nan")
    def nan(self, params):
        return {"x": float("nan")}

    @tool(name="raise")
    def raise_(self, params):
        return {}["missing"]
`

func TestBadInputCalls(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.MemoryMB = 256; c.PoolSize = 2 })
	h := newHost(t, rt)
	loadTool(t, h, "misbehaving.py", misbehaving)
	stillServes(t, h, "loading")

	tests := []struct {
		tool     string
		deadline time.Duration
		code     abi.ErrorCode
		contains []string
	}{
		{"spin", 300 * time.Millisecond, abi.Timeout, []string{"spin", "killed and replaced"}},
		{"grow", 20 * time.Second, abi.ProviderError, []string{"MemoryError", "256 MiB"}},
		{"huge", 20 * time.Second, abi.ProviderError, []string{"MemoryError", "256 MiB"}},
		{"garbage", 10 * time.Second, abi.ProviderCrashed, []string{"protocol violation"}},
		{"exit", 10 * time.Second, abi.ProviderCrashed, []string{"exit status 7"}},
		{"sysexit", 10 * time.Second, abi.ProviderCrashed, []string{"exit status 3"}},
		{"nan", 10 * time.Second, abi.InvalidResult, []string{"not JSON"}},
		{"raise", 10 * time.Second, abi.ProviderError, []string{"KeyError", "misbehaving.py:"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			start := time.Now()
			_, err := call(h, tc.tool, map[string]any{}, tc.deadline)
			wantCode(t, err, tc.code, tc.contains...)
			if tc.code == abi.Timeout && time.Since(start) > 3*time.Second {
				t.Errorf("Timeout after %v for a %v deadline", time.Since(start), tc.deadline)
			}
			stillServes(t, h, tc.tool)
		})
	}
}

func TestBadInputLoad(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	tests := []struct {
		name, src string
		contains  []string
	}{
		{"syntax.py", "from aios_sdk import Agent, tool\n\ndef broken(:\n    pass\n", []string{"syntax.py:3:", "SyntaxError"}},
		{"nothing.py", "x = 1\n", []string{"registers no tools"}},
		{"agentless.py", "from aios_sdk import tool\nclass T:\n    @tool(name='a')\n    def a(self, p):\n        return {}\n", []string{"class T has @tool methods but no @Agent"}},
		{"raises.py", "import json\n\nraise RuntimeError('boom at import')\n", []string{"raises.py:3", "RuntimeError", "boom at import"}},
		{"missing_module.py", "import does_not_exist_anywhere\n", []string{"ModuleNotFoundError", "does_not_exist_anywhere"}},
		{"two_agents.py", "from aios_sdk import Agent, tool\n@Agent(name='a')\nclass A:\n    @tool(name='a')\n    def a(self, p): return {}\n@Agent(name='b')\nclass B:\n    @tool(name='b')\n    def b(self, p): return {}\n", []string{"2 @Agent classes"}},
		{"dup.py", "from aios_sdk import Agent, tool\n@Agent(name='a')\nclass A:\n    @tool(name='x')\n    def a(self, p): return {}\n    @tool(name='x')\n    def b(self, p): return {}\n", []string{"'x' is defined twice"}},
		{"badname.py", "from aios_sdk import Agent, tool\n@Agent(name='a')\nclass A:\n    @tool(name='no spaces allowed')\n    def a(self, p): return {}\n", []string{"invalid tool name"}},
		{"badid.py", "from aios_sdk import Agent, tool\n@Agent(id='NotReverseDomain')\nclass A:\n    @tool(name='a')\n    def a(self, p): return {}\n", []string{"invalid provider id"}},
		{"exits.py", "import os\nos._exit(9)\n", []string{"exited before registering", "exit status 9"}},
		{"spins.py", "while True:\n    pass\n", []string{"did not register within"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "spins.py" {
				rt := newRuntime(t, func(c *python.Config) { c.StartupTimeout = 1500 * time.Millisecond })
				h := newHost(t, rt)
				_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
				checkLoadErr(t, err, tc.contains)
				return
			}
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, tc.contains)
		})
	}
	// The host still loads and serves a good provider afterwards.
	loadTool(t, h, "good.py", misbehaving)
	stillServes(t, h, "bad loads")
}

func checkLoadErr(t *testing.T, err error, contains []string) {
	t.Helper()
	if err == nil {
		t.Fatal("loaded without error")
	}
	for _, s := range contains {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("load error %q does not contain %q", err, s)
		}
	}
}

func TestMissingInterpreter(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.Interpreter = "python3-that-does-not-exist" })
	_, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "x.py", misbehaving)})
	checkLoadErr(t, err, []string{`"python3-that-does-not-exist" not found in PATH`, "runtimes.python.interpreter"})
}

func TestConfigSection(t *testing.T) {
	cfg := testConfig(t)
	tests := []struct {
		yaml    string
		wantErr string
		check   func(python.Config) bool
	}{
		{"runtimes:\n  python:\n    pool_size: 3\n    memory_mb: 128\n    startup_timeout: 2s\n", "", func(c python.Config) bool {
			return c.PoolSize == 3 && c.MemoryMB == 128 && c.StartupTimeout == 2*time.Second && c.Interpreter == "python3"
		}},
		{"runtimes:\n  python:\n    pool_sise: 3\n", "pool_sise", nil},
		{"runtimes:\n  python:\n    pool_size: 0\n", "pool_size: 0", nil},
		{"runtimes:\n  python:\n    memory_mb: 8\n", "memory_mb: 8", nil},
		{"", "", func(c python.Config) bool {
			return c.PoolSize == python.DefaultPoolSize && c.Spin == python.DefaultSpin
		}},
		{"runtimes:\n  python:\n    spin: 120us\n", "", func(c python.Config) bool { return c.Spin == 120*time.Microsecond }},
		{"runtimes:\n  python:\n    spin: 0s\n", "", func(c python.Config) bool { return c.Spin == 0 }},
		{"runtimes:\n  python:\n    spin: 1s\n", "spin: 1s", nil},
		{"runtimes:\n  python:\n    spin: -1us\n", "spin: -1µs", nil},
		{"", "", func(c python.Config) bool { return c.Wire == "msgpack" }},
		{"runtimes:\n  python:\n    wire: json\n", "", func(c python.Config) bool { return c.Wire == "json" }},
		{"runtimes:\n  python:\n    wire: JSON\n", `runtimes.python.wire: "JSON" is not a wire format (want msgpack or json)`, nil},
	}
	for i, tc := range tests {
		parsed, err := parseConfig(tc.yaml)
		if err != nil {
			if tc.wantErr == "" || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("#%d: parse: %v", i, err)
			}
			continue
		}
		parsed.Data = cfg.Data
		c, err := python.ConfigFrom(parsed)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("#%d: want error containing %q, got %v", i, tc.wantErr, err)
			}
			continue
		}
		if err != nil || !tc.check(c) {
			t.Fatalf("#%d: got %+v, %v", i, c, err)
		}
	}
}

// TestChattyToolDoesNotFloodLog: print() output is logged, capped per second.
func TestChattyToolDoesNotFloodLog(t *testing.T) {
	var logs testutil.SyncBuffer
	rt, err := python.New(python.DefaultConfig(), slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "chatty.py", `from aios_sdk import Agent, tool
@Agent(id="org.test.chatty")
class Chatty:
    @tool(name="chat")
    def chat(self, params):
        for i in range(1000):
            print("line", i)
        return {"ok": True}
`)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "chat", Params: map[string]any{}}, nil)
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("chat: %v %v", v, err)
	}
	_ = p.Close()
	for i := 0; !strings.Contains(logs.String(), "python stderr lines suppressed"); i++ {
		if i == 3000 { // 30 s: only bounds a hang
			t.Fatalf("no suppression reported; log has %d lines", strings.Count(logs.String(), "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(logs.String(), `msg="python stderr" `); n < 50 || n > 200 {
		t.Fatalf("%d stderr lines logged for 1000 printed, want about 100", n)
	}
}

// TestIdleWorkerKilled: a worker killed from outside while idle is noticed
// and replaced; the next call is served.
func TestIdleWorkerKilled(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "m.py", misbehaving)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pids := p.(*python.Provider).WorkerPIDs()
	if len(pids) != 1 {
		t.Fatalf("want one warm worker, have %v", pids)
	}
	if err := testutil.Kill(pids[0]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "ok", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}, nil)
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("after the idle worker was killed: %v, %v", v, err)
	}
	if now := p.(*python.Provider).WorkerPIDs(); len(now) != 1 || now[0] == pids[0] {
		t.Fatalf("workers %v after replacing %d", now, pids[0])
	}
}

// TestKilledWorkerCallRetried: a call that picks an idle worker killed
// from outside, reaped but not yet seen dead by the runtime, met "writing
// the call failed: broken pipe" (ProviderCrashed; TestLeakWorkersKilled in
// a clean-clone CI run); the call never reached the worker, so another
// serves it. Each round kills the worker and calls as soon as it is
// reaped, without the sleep TestIdleWorkerKilled gives the runtime.
func TestKilledWorkerCallRetried(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "m.py", misbehaving)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 10 {
		pids := p.(*python.Provider).WorkerPIDs()
		if len(pids) == 0 {
			v, err := p.Call(context.Background(), &abi.ToolCall{ID: "warm", Tool: "ok", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}, nil)
			if err != nil {
				t.Fatalf("round %d: warming: %v, %v", i, v, err)
			}
			pids = p.(*python.Provider).WorkerPIDs()
		}
		for _, pid := range pids {
			_ = testutil.Kill(pid)
		}
		for _, pid := range pids {
			for end := time.Now().Add(10 * time.Second); testutil.Alive(pid) && time.Now().Before(end); {
				time.Sleep(time.Millisecond)
			}
		}
		v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "ok", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}, nil)
		if err != nil || v.(map[string]any)["ok"] != true {
			t.Fatalf("round %d: a call right after the idle worker %v was killed and reaped: %v, %v", i, pids, v, err)
		}
	}
}

// TestCallCancelled: a caller that cancels a call in flight gets Cancelled
// promptly (the pipe wait polls its context), the worker is killed and
// replaced, and the next call is served.
func TestCallCancelled(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "m.py", misbehaving)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = p.Call(ctx, &abi.ToolCall{ID: "c1", Tool: "spin", Params: map[string]any{}, Deadline: time.Now().Add(20 * time.Second)}, nil)
	wantCode(t, err, abi.Cancelled, "cancelled")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Cancelled after %v for a cancellation at 100ms", d)
	}
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c2", Tool: "ok", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}, nil)
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("after a cancelled call: %v, %v", v, err)
	}
}

// TestSpinSettings: calls are served the same with spinning off (the worker
// keeps a blocking input), at the default, and at the maximum window.
func TestSpinSettings(t *testing.T) {
	for _, spin := range []time.Duration{0, python.DefaultSpin, python.MaxSpin} {
		rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1; c.Spin = spin })
		p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "m.py", misbehaving)})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			v, err := p.Call(context.Background(), &abi.ToolCall{Tool: "ok", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}, nil)
			if err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("spin %v, call %d: %v, %v", spin, i, v, err)
			}
		}
		_ = p.Close()
	}
}
