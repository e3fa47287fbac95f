package js

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

const benchProvider = `
const schema = { type: 'object', properties: { msg: { type: 'string' }, n: { type: 'integer' } }, required: ['msg', 'n'] };
aios.registerTool({ name: 'echo', parameters: schema }, (p) => p);
aios.registerTool({ name: 'echo-async', parameters: schema }, async (p) => p);
aios.registerTool({ name: 'echo-await', parameters: schema }, async (p, ctx) => {
  await new Promise((r) => setTimeout(r, 0));
  return p;
});
`

// benchCall measures Provider.Call (runtime level, no host pipeline) with
// params as a canonical Go map, as the host passes them, from GOMAXPROCS
// callers (at -cpu 1 one caller), with a warm runtime in the pool for each.
func benchCall(b *testing.B, tool string) {
	p := benchProviderWarm(b, runtime.GOMAXPROCS(0))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	params := map[string]any{"msg": "hello", "n": int64(42)}
	b.ReportAllocs()
	start := processCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := &abi.ToolCall{ID: "b", Tool: tool, Params: params}
		env := newFakeEnv()
		for pb.Next() {
			if _, err := p.Call(ctx, c, env); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// benchProviderWarm loads benchProvider with warm runtimes in its pool.
func benchProviderWarm(b *testing.B, warm int) *Provider {
	rt := newRuntime(b, Options{})
	p := loadSource(b, rt, "bench.js", benchProvider)
	if err := p.Prewarm(warm); err != nil {
		b.Fatal(err)
	}
	return p
}

// processCPU is the process's user+system CPU time: on the shared machine
// wall-clock ns/op mostly measures waiting for a CPU, cpu-ns/op the work.
func processCPU() time.Duration {
	return testutil.ProcessCPU()
}

// BenchmarkRuntimeJSEchoSync is a sync handler through Provider.Call: pool
// checkout, params to JS, call, result to Go.
func BenchmarkRuntimeJSEchoSync(b *testing.B) { benchCall(b, "echo") }

// BenchmarkRuntimeJSEchoAsync is an async handler (the promise settles
// before the call returns to Go).
func BenchmarkRuntimeJSEchoAsync(b *testing.B) { benchCall(b, "echo-async") }

// BenchmarkRuntimeJSEchoSyncParallel is the provider's scaling benchmark:
// -cpu 1,2 (the same shape as BenchmarkRuntimeJSEchoSync, named for it).
func BenchmarkRuntimeJSEchoSyncParallel(b *testing.B) { benchCall(b, "echo") }

// BenchmarkRuntimeJSEchoSyncSerial is one caller whatever -cpu says: the
// latency of a call (at -cpu 2 the hand-offs to the runtime's goroutine
// may wake the idle second P, which costs rather than helps).
func BenchmarkRuntimeJSEchoSyncSerial(b *testing.B) {
	p := benchProviderWarm(b, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	c := &abi.ToolCall{ID: "b", Tool: "echo", Params: map[string]any{"msg": "hello", "n": int64(42)}}
	env := newFakeEnv()
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		if _, err := p.Call(ctx, c, env); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRuntimeJSEchoAwaitTimer awaits a setTimeout(0): one trip through
// the event loop (timer goroutine, job queue, resume).
func BenchmarkRuntimeJSEchoAwaitTimer(b *testing.B) { benchCall(b, "echo-await") }

// BenchmarkRawGojaEchoRuntime is the floor: the same function called on a
// bare goja runtime, params converted and the result exported by this
// runtime's converters (reused across calls, as a worker does).
func BenchmarkRawGojaEchoRuntime(b *testing.B) {
	vm := goja.New()
	v, err := vm.RunString(`(p) => p`)
	if err != nil {
		b.Fatal(err)
	}
	fn, _ := goja.AssertFunction(v)
	params := map[string]any{"msg": "hello", "n": int64(42)}
	im, ex := importer{vm: vm}, exporter{vm: vm} // reused, as a worker does
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		r, err := fn(goja.Undefined(), im.value(params))
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := ex.export(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// provider200 is a TypeScript provider of about 200 lines.
func provider200() string {
	var s strings.Builder
	s.WriteString("import { Agent, tool, Capability } from 'aios-sdk';\n\n")
	s.WriteString("interface Params { text: string; count?: number }\n\n")
	s.WriteString("@Agent({ name: 'Big', capabilities: [Capability.ReadSpace('docs')] })\nclass Big {\n")
	for i := range 16 {
		fmt.Fprintf(&s, `  @tool({
    name: 'tool-%d',
    description: 'Tool number %d',
    parameters: { text: { type: 'string' }, count: { type: 'integer', default: 1 } },
  })
  async tool%d(params: Params, ctx: AgentContext): Promise<{ out: string; n: number }> {
    const n = params.count ?? 1;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(params.text.toUpperCase());
    ctx.log('tool-%d', n);
    return { out: parts.join(' '), n };
  }

`, i, i, i, i)
	}
	s.WriteString("}\n")
	return s.String()
}

// BenchmarkTranspileTS200 is the load-time cost of a 200-line TypeScript
// provider before its code runs, as a load pays it: bundled by esbuild in
// a bundler process (bundler.go; with the bundler's trial compile) and
// compiled for goja in this one. cpu-ns/op counts both processes (the
// bundler's from /proc, in clock ticks: coarse, but over 100 loads).
// /in-process is esbuild and goja in this process alone (what the load did
// before the bundler process); /cold is the first load of a runtime, which
// starts its bundler process (wall time only).
func BenchmarkTranspileTS200(b *testing.B) {
	src := provider200()
	if n := strings.Count(src, "\n"); n < 190 || n > 230 {
		b.Fatalf("provider has %d lines, want about 200", n)
	}
	path := writeSource(b, "big.ts", src)
	rt := newRuntime(b, Options{})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			cold := New(Options{})
			if _, err := cold.bundle(context.Background(), path, nil, true); err != nil {
				b.Fatal(err)
			}
			_ = cold.Close()
		}
	})
	for _, mode := range []string{"load", "in-process"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			if mode == "load" { // the bundler process runs before the timer starts
				if _, err := rt.bundle(context.Background(), path, nil, true); err != nil {
					b.Fatal(err)
				}
			}
			start := processCPU() + childrenCPU() + bundlerCPU(rt)
			for b.Loop() {
				var bd *bundled
				var err error
				if mode == "load" {
					bd, err = rt.bundle(context.Background(), path, nil, true)
				} else {
					bd, err = bundleFile(path, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := goja.Compile(bd.Name, bd.Code, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()+childrenCPU()+bundlerCPU(rt)-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// bundlerCPU returns the CPU time rt's bundler process has used so far
// (utime + stime of /proc/PID/stat, at 100 ticks a second), 0 if none runs.
func bundlerCPU(rt *Runtime) time.Duration {
	rt.bmu.Lock()
	defer rt.bmu.Unlock()
	if rt.bproc == nil {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", rt.bproc.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: state is
	// field 3, utime and stime are fields 14 and 15.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// childrenCPU returns the CPU time of the child processes waited for.
func childrenCPU() time.Duration {
	return testutil.ChildrenCPU()
}

// TestProvider200Loads keeps the benchmark's provider honest.
func TestProvider200Loads(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "big.ts", provider200())
	if n := len(p.Describe().Tools); n != 16 {
		t.Fatalf("%d tools, want 16", n)
	}
	res, err := call(t, p, newFakeEnv(), "tool-3", map[string]any{"text": "ab", "count": int64(2)}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"out": "AB AB", "n": int64(2)}; !equalJSON(res, want) {
		t.Errorf("result = %v", res)
	}
}

// BenchmarkDeadlineWatchdog is what arming and disarming a call's deadline
// costs with the shared watchdog (begin + end: two short critical sections
// and an atomic counter), to compare with BenchmarkDeadlineAfterFunc.
func BenchmarkDeadlineWatchdog(b *testing.B) {
	rt := newRuntime(b, Options{})
	p := loadSource(b, rt, "bench.js", benchProvider)
	w := <-p.free
	defer func() { p.free <- w }()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		w.begin(ctx, time.Now().Add(time.Minute), "echo")
		w.end()
	}
}

// BenchmarkDeadlineAfterFunc is the per-call alternative: a context with
// the deadline and context.AfterFunc to interrupt the runtime.
func BenchmarkDeadlineAfterFunc(b *testing.B) {
	vm := goja.New()
	parent := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithDeadline(parent, time.Now().Add(time.Minute))
		stop := context.AfterFunc(ctx, func() { vm.Interrupt("deadline") })
		stop()
		cancel()
	}
}

// BenchmarkRuntimeJSEchoInvokeInline is BenchmarkRuntimeJSEchoSyncSerial
// without the pool and the hand-off to the runtime's goroutine (the
// runtime's work on the caller's goroutine): the difference is what the
// hand-off, which lets Call return by its deadline even when a native
// built-in ignores the interrupt, costs.
func BenchmarkRuntimeJSEchoInvokeInline(b *testing.B) {
	p := benchProviderWarm(b, 1)
	w := <-p.free
	defer func() { p.free <- w }()
	ctx := context.Background()
	c := &abi.ToolCall{ID: "b", Tool: "echo", Params: map[string]any{"msg": "hello", "n": int64(42)}}
	env := newFakeEnv()
	deadline := time.Now().Add(time.Hour)
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		if _, te, _, _ := w.invoke(ctx, 0, c, env, deadline); te != nil {
			b.Fatal(te)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
