package python_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/python"
)

// docs/python.md: "ctx (every method returns an awaitable; in a plain def
// tool call .wait() on it …)". ctx.log returned an already-done awaitable
// without .wait(), so a plain def tool following the docs,
// ctx.log("x").wait(), failed with "AttributeError: 'Done' object has no
// attribute 'wait'".
func TestLogWaitInPlainTool(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "logwait.py", `from aios_sdk import tool

@tool
def logwait(params, ctx):
    r = ctx.log("from a plain tool").wait()
    return {"r": r}

@tool
def ok(params):
    return {"ok": True}
`)
	got, err := call(h, "logwait", map[string]any{}, 0)
	if err != nil {
		t.Fatalf("ctx.log(...).wait() in a plain def tool: %v", err)
	}
	if m, _ := got.(map[string]any); m == nil || m["r"] != nil {
		t.Fatalf("logwait returned %#v, want {r: None}", got)
	}
	stillServes(t, h, "logwait")
}

// A tool that closes every descriptor (a careless "daemonize" helper) takes
// the worker's protocol pipe with it. The host read the end of the pipe,
// killed the still-running worker without saying why, and reported the
// resulting SIGKILL as "signal: killed (killed: the memory or CPU limit may
// have been reached)": a limit had nothing to do with it. The worker is now
// given a moment to end by itself, and if it does not, it is killed with
// the reason.
func TestClosedPipeNotBlamedOnLimits(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "closeall.py", `import os, time
from aios_sdk import tool

@tool
def closeall(params):
    for fd in range(64):
        try:
            os.close(fd)
        except OSError:
            pass
    time.sleep(30)

@tool
def ok(params):
    return {"ok": True}
`)
	_, err := call(h, "closeall", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "closeall.py", "closed")
	if strings.Contains(err.Error(), "memory or CPU limit") {
		t.Fatalf("a closed pipe blamed on the limits: %v", err)
	}
	stillServes(t, h, "closeall")
}

// A worker that crashes is replaced in the background; when the replacement
// could not start (the file now fails at import), a call waiting for the
// pool's one worker was never told: it waited its whole deadline and got
// "Timeout: waiting for a free python worker (all 1 of … busy …)", though
// no worker was busy. The failed replacement wakes the waiters now, and the
// call starts a worker itself and gets the load error at once.
func TestFailedReplacementWakesWaiters(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	p := writeTool(t, "crashy.py", `import os
from aios_sdk import tool

if os.path.exists(os.path.join(os.path.dirname(__file__), "broken")):
    raise RuntimeError("import fails from now on")

@tool
def ok(params):
    return {"ok": True}

@tool
def die(params):
    os._exit(9)
`)
	if _, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Source: "crashy.py", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "broken"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := call(h, "die", map[string]any{}, 0)
	wantCode(t, err, abi.ProviderCrashed, "exit status 9")
	// The replacement is starting (and will fail) while this call waits.
	start := time.Now()
	_, err = call(h, "ok", map[string]any{}, 4*time.Second)
	wantCode(t, err, abi.Unavailable, "crashy.py:5", "import fails from now on")
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the call waited %v for a worker that was not coming", d)
	}
}

// A worker that ended between calls (a tool's thread calling os._exit after
// the call, an alarm it set, a kill from outside) was replaced at the next
// call without a word: how it ended was nowhere in the log (the JS runtime
// warns "JS worker process ended"). It is logged as a warning now, with its
// exit status and stderr.
func TestIdleWorkerDeathLogged(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "idleexit.py", `import os, threading, time
from aios_sdk import tool

@tool
def later(params):
    def run():
        time.sleep(0.1)
        print("leaving now", flush=True)
        os._exit(5)
    threading.Thread(target=run, daemon=True).start()
    return {"ok": True}

@tool
def ok(params):
    return {"ok": True}
`)
	if _, err := call(h, "later", map[string]any{}, 0); err != nil {
		t.Fatal(err)
	}
	rec := capt.waitRecord(t, "python worker ended while idle", 10*time.Second)
	if rec.level != slog.LevelWarn || !strings.Contains(rec.attrs["err"], "exit status 5") || !strings.Contains(rec.attrs["err"], "leaving now") {
		t.Fatalf("idle death logged as %v %q", rec.level, rec.attrs)
	}
	stillServes(t, h, "the idle worker's death")
}

// A result or host-call argument that contains itself was "Circular
// reference detected" without a path over JSON and "nested deeper than 512
// levels …; return it flatter or as a string" over MessagePack (the
// packer counts a cycle as nesting): two messages for one value, the second
// with the wrong advice (docs/python.md: "the same value or message in
// both"). Both now name the cycle and its path, as JS does ("cycle").
func TestCycleNamedAlike(t *testing.T) {
	const src = `from aios_sdk import tool

@tool
def cycle(params):
    l = [1]
    l.append(l)
    return {"l": l}

@tool
def shared(params):
    # Shared, not cyclic: a value met twice is no cycle.
    x = {"a": 1}
    return {"p": [x, x], "q": x}

@tool
def argcycle(params, ctx):
    d = {}
    d["d"] = d
    return ctx.call_tool("ok", {"x": [d]}).wait()

@tool
def ok(params):
    return {"ok": True}
`
	for _, format := range []string{"msgpack", "json"} {
		t.Run(format, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = format }))
			loadTool(t, h, "cyc.py", src)
			_, err := call(h, "cycle", map[string]any{}, 0)
			wantCode(t, err, abi.InvalidResult, "tool cycle returned a value that is not JSON: Circular reference detected (at $.l[1]: the value contains itself")
			if _, err := call(h, "shared", map[string]any{}, 0); err != nil {
				t.Fatalf("a shared value: %v", err)
			}
			_, err = call(h, "argcycle", map[string]any{}, 0)
			wantCode(t, err, abi.ProviderError, "ValueError: call_tool arguments: Circular reference detected (at $.params.x[0].d: the value contains itself", "cyc.py:19")
			stillServes(t, h, "cycles")
		})
	}
}

// cpu_seconds is RLIMIT_CPU over a worker's whole life, so a worker that
// served enough ordinary calls was killed by SIGXCPU in the middle of the
// next one, whichever it was: a busy host saw innocent calls fail with
// ProviderCrashed every cpu_seconds of CPU. A worker is now replaced between
// calls once it has used half of its CPU limit.
func TestCPULimitSparesInnocentCalls(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1; c.CPUSeconds = 1 }))
	loadTool(t, h, "burn.py", `import os, time
from aios_sdk import tool

@tool
def burn(params):
    t = time.process_time()
    while time.process_time() - t < 0.3:
        pass
    return {"pid": os.getpid(), "cpu": time.process_time()}
`)
	for i := range 9 {
		got, err := call(h, "burn", map[string]any{}, 20*time.Second)
		t.Logf("burn %d: %v", i, got)
		if err != nil {
			t.Fatalf("call %d (0.3 s of CPU each, cpu_seconds 1): %v", i, err)
		}
	}
}

// Cancelling a call kills its worker, and each such kill counted as a
// failure in a row for the replacement's backoff (0, 50 ms, … 5 s): after a
// few cancelled calls (a client that gives up, an MCP cancel) the next call
// of a healthy tool waited seconds for its worker. A cancellation is the
// caller's doing, not the tool's: its replacement starts at once.
func TestCancelsDoNotBackOff(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "sl.py", `import time
from aios_sdk import tool

@tool
def slow(params, ctx):
    ctx.log("slow started")
    time.sleep(30)

@tool
def ok(params):
    return {"ok": True}
`)
	for i := range 8 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: "slow", Params: map[string]any{}, Deadline: time.Now().Add(60 * time.Second)})
			done <- err
		}()
		for n := 0; len(capt.records("slow started")) <= i; n++ {
			if n == 3000 {
				t.Fatalf("call %d never started", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		wantCode(t, <-done, abi.Cancelled, "the call was cancelled; python worker")
	}
	if _, err := call(h, "ok", map[string]any{}, 2*time.Second); err != nil {
		t.Fatalf("after 8 cancelled calls: %v", err)
	}
}

// A call that waited for the pool while its worker was being replaced
// (after crashes, with backoff) was told "all 1 of … busy;
// runtimes.python.pool_size", pointing at the pool size when no worker was
// busy: it now says how many are being started in place of ones that ended.
func TestPoolWaitSaysReplacing(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	loadTool(t, h, "dies.py", `import os
from aios_sdk import tool

@tool
def die(params):
    os._exit(3)

@tool
def ok(params):
    return {"ok": True}
`)
	// Six crashes in a row: the next replacement waits backoff(6) = 800 ms.
	for range 6 {
		_, err := call(h, "die", map[string]any{}, 20*time.Second)
		wantCode(t, err, abi.ProviderCrashed, "exit status 3")
	}
	_, err := call(h, "ok", map[string]any{}, 300*time.Millisecond)
	wantCode(t, err, abi.Timeout, "waiting for a free python worker", "1 being started in place of a worker that ended")
}

// A plain def tool that runs async code on an event loop of its own
// (asyncio.run, the usual bridge from sync to async code, or a loop in an
// executor thread) could not await ctx there: "RuntimeError: Task got bad
// yield: <aios_sdk._core.HostOp object at 0x…>". On a loop that is not the
// worker's, an awaited ctx operation now makes its round trip directly, as
// .wait() does.
func TestCtxOnOwnEventLoop(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "ownloop.py", `import asyncio, concurrent.futures
from aios_sdk import Capability, provider, tool

provider(capabilities=[Capability.CallTool("ok")])

@tool
def syncrun(params, ctx):
    async def main():
        await asyncio.sleep(0.01)
        a, b = await asyncio.gather(ctx.call_tool("ok", {}), ctx.call_tool("ok", {}))
        await ctx.log("on my own loop")
        return {"a": a, "b": b}
    return asyncio.run(main())

@tool
async def inthread(params, ctx):
    await asyncio.sleep(0)  # on the worker's asyncio loop
    async def one():
        return await ctx.call_tool("ok", {})
    def work():
        return asyncio.run(one())
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        return await asyncio.get_running_loop().run_in_executor(ex, work)

@tool
def ok(params):
    return {"ok": True}
`)
	got, err := call(h, "syncrun", map[string]any{}, 0)
	if err != nil {
		t.Fatalf("asyncio.run in a plain tool: %v", err)
	}
	if m, _ := got.(map[string]any); m == nil || m["a"] == nil || m["b"] == nil {
		t.Fatalf("syncrun returned %#v", got)
	}
	got, err = call(h, "inthread", map[string]any{}, 0)
	if m, _ := got.(map[string]any); err != nil || m["ok"] != true {
		t.Fatalf("asyncio.run in an executor thread of an async tool: %#v, %v", got, err)
	}
	stillServes(t, h, "own event loops")
}

// A MemoryError leaves the worker serving ("the worker lives on"), right for
// one oversized allocation; but when the memory is held (a module-level
// cache that grows with every call), every later call that allocates
// failed with MemoryError for the worker's whole life, whichever tool it
// was. A worker that still holds half of its memory limit after a
// MemoryError is now replaced after that call.
func TestMemoryErrorWithHeldMemoryReplaces(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1; c.MemoryMB = 256 }))
	loadTool(t, h, "leak.py", `import os
from aios_sdk import tool
cache = []
token = os.urandom(8).hex()  # which worker

@tool
def which(params):
    return token

@tool
def leak(params):
    cache.append(bytearray(40 << 20))
    return {"n": len(cache)}

@tool
def work(params):
    return {"n": len(bytearray(60 << 20))}

@tool
def huge(params):
    return {"n": len(bytearray(1 << 30))}
`)
	which := func() any {
		t.Helper()
		v, err := call(h, "which", map[string]any{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// One oversized allocation: the worker lives on (its memory is free).
	first := which()
	_, err := call(h, "huge", map[string]any{}, 0)
	wantCode(t, err, abi.ProviderError, "MemoryError in tool huge")
	if w := which(); w != first {
		t.Fatalf("worker %v replaced by %v after one oversized allocation", first, w)
	}
	var failed bool
	for i := 0; i < 10 && !failed; i++ {
		_, err := call(h, "leak", map[string]any{}, 0)
		if err != nil {
			wantCode(t, err, abi.ProviderError, "MemoryError in tool leak")
			failed = true
		}
	}
	if !failed {
		t.Fatal("400 MiB held within a 256 MiB limit without a MemoryError")
	}
	if _, err := call(h, "work", map[string]any{}, 0); err != nil {
		t.Fatalf("after a MemoryError with the memory held: %v", err)
	}
	got, err := call(h, "leak", map[string]any{}, 0)
	if m, _ := got.(map[string]any); err != nil || m["n"] != int64(1) {
		t.Fatalf("leak on a fresh worker: %#v, %v", got, err)
	}
}

// A worker killed by its CPU limit in the middle of a call was reported as
// "signal: killed (killed: the memory or CPU limit may have been reached)":
// a guess, though the host knows the CPU time the worker used when it
// reaps it. It now says the CPU limit was reached, and names the setting.
func TestCPULimitKillNamed(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1; c.CPUSeconds = 1 }))
	loadTool(t, h, "spin.py", `from aios_sdk import tool

@tool
def spin(params):
    while True:
        pass
`)
	_, err := call(h, "spin", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderCrashed, "spin.py", "its CPU limit was reached", "runtimes.python.cpu_seconds")
	if strings.Contains(err.Error(), "memory") {
		t.Fatalf("a CPU limit kill blamed on memory too: %v", err)
	}
}

// A result whose own methods raise while it is encoded (a dict or list
// subclass whose items() or __iter__ fails: a lazy proxy of some library)
// ended the worker: ProviderCrashed "exit status 1; stderr: Traceback …",
// though "a failure never ends the worker". It is InvalidResult naming the
// exception now, in both wire formats, and the worker lives on; a
// ToolError's data that raises so is left out, as data that is not JSON is.
func TestResultEncodingRaises(t *testing.T) {
	const src = `import os
from aios_sdk import ToolError, tool
token = os.urandom(8).hex()

class D(dict):
    def items(self):
        raise RuntimeError("boom items")
    def keys(self):
        raise RuntimeError("boom keys")
    def __iter__(self):
        raise RuntimeError("boom iter")

class L(list):
    def __iter__(self):
        raise RuntimeError("boom list")

@tool
def d(params):
    return {"x": D(a=1)}

@tool
def l(params):
    return {"x": L([1, 2])}

@tool
def e(params):
    raise ToolError(ToolError.NotFound, "no such thing", D(a=1))

@tool
def which(params):
    return token
`
	for _, format := range []string{"msgpack", "json"} {
		t.Run(format, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = format; c.PoolSize = 1 }))
			loadTool(t, h, "weird.py", src)
			before, err := call(h, "which", map[string]any{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = call(h, "d", map[string]any{}, 0)
			wantCode(t, err, abi.InvalidResult, "tool d returned a value that could not be encoded: RuntimeError: boom")
			_, err = call(h, "l", map[string]any{}, 0)
			wantCode(t, err, abi.InvalidResult, "tool l returned a value that could not be encoded: RuntimeError: boom list")
			_, err = call(h, "e", map[string]any{}, 0)
			wantCode(t, err, abi.NotFound, "no such thing (its data was left out: boom")
			if after, err := call(h, "which", map[string]any{}, 0); err != nil || after != before {
				t.Fatalf("worker %v, then %v (%v): it did not live on", before, after, err)
			}
		})
	}
}

// A nested call of a provider's own tool that waited past the pool and
// the workers started beyond it for such calls was told "all 1 of … busy;
// runtimes.python.pool_size", as if the pool were all it had: it now says
// the extra workers for nested calls were busy too, and their bound.
func TestDeepSelfNestingSaysExtraWorkers(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	p := loadTool(t, h, "hold.py", `import time
from aios_sdk import tool

@tool
def hold(params):
    time.sleep(30)
    return {}
`).(*python.Provider)
	id := p.Describe().Provider.ID
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const held = 1 + 8 // the pool, then max(pool_size, 8) extra workers
	done := make(chan error, held)
	nested := func(ctx context.Context, d time.Duration) error {
		_, err := p.Call(ctx, &abi.ToolCall{Caller: id, Tool: "hold", Params: map[string]any{}, Depth: 1, Deadline: time.Now().Add(d)}, nil)
		return err
	}
	for range held {
		go func() { done <- nested(ctx, time.Minute) }()
	}
	testutil.Eventually(t, "every worker busy", func() bool {
		_, busy := p.PoolStats()
		return busy == held
	})
	wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer wcancel()
	wantCode(t, nested(wctx, time.Minute), abi.Timeout, "waiting for a free python worker", "all 1 of "+id+" busy, and the 8 more it starts for nested calls of its own tools")
	cancel()
	for range held {
		<-done
	}
}
