package conformance

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// wasmCacheDir keeps compiled guests across test runs.
func wasmCacheDir() string { return filepath.Join(os.TempDir(), "aios-wasm-conformance-cache") }

// The WASM conformance provider is the Go guest samples/wasm/conformance,
// built by samples/wasm/build.sh into build/wasm/conformance.wasm.
//
// The fixture's loader runs with runtimes.wasm.clock: real. The table's
// sleep must take real time, and under the default fake clock (every
// reading advances 1 ms) a guest cannot measure it; the provider itself
// asks for CallTool(*) only.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeWASM,
		Load: func(t *testing.T) (abi.Provider, error) {
			path, err := artifact(t, "wasm/conformance.wasm")
			if err != nil {
				return nil, err
			}
			l, err := wasm.NewLoader(wasm.Options{Config: wasm.Config{Clock: "real", CacheDir: wasmCacheDir()}})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { _ = l.Close() })
			return l.Load(context.Background(), abi.Source{Path: path})
		},
	})
}

const benchEchoValue = "hello"

// newWASMBenchHost is a host with the whole pipeline on (grants, rate
// limits, params schema, deadline, result normalization, no audit file)
// serving the WASM conformance guest on the named engine.
func newWASMBenchHost(b *testing.B, engine string) *host.Host {
	return newWASMBenchHostWith(b, engine, func(p abi.Provider) abi.Provider { return p })
}

// watched hides a provider's abi.DeadlineKeeper, so that the host serves
// it on a watcher goroutine with a timer per call (host.callWatched): the
// cost the bypass for deadline keepers saves.
type watched struct{ abi.Provider }

func newWASMBenchHostWith(b *testing.B, engine string, wrap func(abi.Provider) abi.Provider) *host.Host {
	b.Helper()
	path := filepath.Join(repoRootB(b), "build", "wasm", "conformance.wasm")
	if _, err := os.Stat(path); err != nil {
		b.Fatalf("%s is missing: run `make samples`", path)
	}
	dir := b.TempDir()
	cfg := config.Default()
	cfg.Data = dir
	cfg.Agents = map[string]config.Agent{"bench": {Grants: []string{"CallTool(*)"}, Rate: &config.Rate{PerSecond: 1e12, Burst: 1 << 30}}}
	cfg.Limits.DefaultDeadline = 10 * time.Second
	cfg.RateLimits.Global = &config.Rate{PerSecond: 1e12, Burst: 1 << 30}
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	l, err := wasm.NewEngineLoader(engine, wasm.Options{Config: wasm.Config{CacheDir: wasmCacheDir(), PoolSize: 4}})
	if err != nil {
		b.Fatal(err)
	}
	if c, ok := l.(interface{ Close() error }); ok {
		b.Cleanup(func() { _ = c.Close() })
	}
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.AddProvider(context.Background(), wrap(p), host.ProviderMeta{Source: path, Trust: abi.System}); err != nil {
		b.Fatal(err)
	}
	return h
}

func repoRootB(b *testing.B) string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if parent := filepath.Dir(dir); parent != dir {
			dir = parent
			continue
		}
		b.Fatal("no go.mod above the working directory")
	}
}

// BenchmarkPipelineWASMEcho: host.Call of the WASM guest's echo with params
// {"value":"hello"} given as a Go map (as an in-process caller does):
// lookup, capability check, rate limit, schema validation, deadline, pool,
// MessagePack encode into guest memory, the guest's decode/dispatch/encode,
// result decode. One sub-benchmark per engine compiled in
// (wasm.Engines()): /wazero always, /wasmtime with -tags wasmtime.
func BenchmarkPipelineWASMEcho(b *testing.B) {
	for _, engine := range wasm.Engines() {
		b.Run(engine, func(b *testing.B) {
			h := newWASMBenchHost(b, engine)
			ctx := context.Background()
			params := map[string]any{"value": benchEchoValue}
			call := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: params}
			wasmCPU(b, func() {
				for b.Loop() {
					if _, err := h.Call(ctx, call); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkPipelineWASMEchoWatched is BenchmarkPipelineWASMEcho/wazero
// with the provider's DeadlineKeeper hidden: the host then runs each call on
// a goroutine of its own with a timer (the state before the bypass).
func BenchmarkPipelineWASMEchoWatched(b *testing.B) {
	h := newWASMBenchHostWith(b, wasm.EngineWazero, func(p abi.Provider) abi.Provider { return watched{p} })
	ctx := context.Background()
	call := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: map[string]any{"value": benchEchoValue}}
	wasmCPU(b, func() {
		for b.Loop() {
			if _, err := h.Call(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// wasmCPU reports cpu-ns/op (process CPU time per op) beside the wall
// clock: on the shared 2-core machine wall time mostly measures waiting.
func wasmCPU(b *testing.B, run func()) {
	b.ReportAllocs()
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	run()
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkPipelineWASMEchoParallel is the same call from GOMAXPROCS
// goroutines (run with -cpu 1,2 for the pool's scaling), per engine.
func BenchmarkPipelineWASMEchoParallel(b *testing.B) {
	for _, engine := range wasm.Engines() {
		b.Run(engine, func(b *testing.B) {
			h := newWASMBenchHost(b, engine)
			ctx := context.Background()
			// Fill the pool first: instantiation is not what this measures.
			done := make(chan struct{})
			for range 4 {
				go func() {
					_, _ = h.Call(ctx, &abi.ToolCall{Caller: "bench", Tool: "sleep", Params: map[string]any{"ms": int64(20)}})
					done <- struct{}{}
				}()
			}
			for range 4 {
				<-done
			}
			wasmCPU(b, func() {
				b.RunParallel(func(pb *testing.PB) {
					call := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: map[string]any{"value": benchEchoValue}}
					for pb.Next() {
						if _, err := h.Call(ctx, call); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		})
	}
}

// BenchmarkRawWazeroEcho calls the same guest export (aios_call) with the
// same params, already encoded and already in guest memory, on a plain
// wazero runtime: the floor the pipeline is compared with.
func BenchmarkRawWazeroEcho(b *testing.B) {
	path := filepath.Join(repoRootB(b), "build", "wasm", "conformance.wasm")
	bin, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("%v: run `make samples`", err)
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(wasmCacheDir())
	if err != nil {
		b.Fatal(err)
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	stub := func(context.Context, uint32, uint32) uint64 { return 0 }
	_, err = r.NewHostModuleBuilder("aios").
		NewFunctionBuilder().WithFunc(stub).Export("call_tool").
		NewFunctionBuilder().WithFunc(stub).Export("space_read").
		NewFunctionBuilder().WithFunc(stub).Export("space_write").
		NewFunctionBuilder().WithFunc(stub).Export("ai_complete").
		NewFunctionBuilder().WithFunc(func(context.Context, uint32, uint32, uint32) {}).Export("log").
		Instantiate(ctx)
	if err != nil {
		b.Fatal(err)
	}
	mod, err := r.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		b.Fatal(err)
	}
	msg := wire.AppendMapHeader(nil, 3)
	msg = wire.AppendString(wire.AppendString(msg, "id"), "c1")
	msg = wire.AppendString(wire.AppendString(msg, "tool"), "echo")
	msg, _ = wire.AppendValue(wire.AppendString(msg, "params"), map[string]any{"value": benchEchoValue})
	res, err := mod.ExportedFunction("aios_alloc").Call(ctx, uint64(len(msg)))
	if err != nil {
		b.Fatal(err)
	}
	ptr := uint32(res[0])
	mod.Memory().Write(ptr, msg)
	fn := mod.ExportedFunction("aios_call")
	stack := make([]uint64, 2)
	wasmCPU(b, func() {
		for b.Loop() {
			stack[0], stack[1] = uint64(ptr), uint64(len(msg))
			if err := fn.CallWithStack(ctx, stack); err != nil {
				b.Fatal(err)
			}
		}
	})
	out, _ := mod.Memory().Read(uint32(stack[0]>>32), uint32(stack[0]))
	if v, err := wire.DecodeValue(out); err != nil || v.(map[string]any)["value"].(map[string]any)["value"] != benchEchoValue {
		b.Fatalf("raw echo returned %v %v", v, err)
	}
}

// TestWASMRecursionDepthViaHost: a WASM tool calling itself through
// aios.call_tool, through the real host, stops at limits.max_call_depth with
// DepthExceeded (passed back unchanged by every level), and the host keeps
// serving.
func TestWASMRecursionDepthViaHost(t *testing.T) {
	h := newHarnessHost(t)
	var load func(*testing.T) (abi.Provider, error)
	fixturesMu.Lock()
	for _, f := range fixtures {
		if f.Runtime == abi.RuntimeWASM {
			load = f.Load
		}
	}
	fixturesMu.Unlock()
	p, err := load(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "wasm fixture", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"tool": "echo", "params": map[string]any{"value": "bottom"}}
	for range 20 {
		params = map[string]any{"tool": "nested", "params": params}
	}
	_, err = call(context.Background(), h, "tester", "nested", params, 10*time.Second)
	if err := wantCode(err, abi.DepthExceeded, ""); err != nil {
		t.Fatal(err)
	}
	if err := stillServes(context.Background(), h, "a recursion past the depth limit"); err != nil {
		t.Fatal(err)
	}
}
