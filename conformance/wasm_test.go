package conformance

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
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
// sleep must take real time, and under the default virtual monotonic clock
// (1 ns a reading; a sleep takes no time) a guest cannot measure it; the provider itself
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

// echoBenchGuest is a guest of the WASM echo benchmarks: its file in
// build/wasm and its conformance-shaped echo tool ({"value": any} →
// {"value": same}).
type echoBenchGuest struct{ Name, File, Tool string }

// echoBenchGuests: "go" is the Go SDK conformance guest (a Go wasip1
// guest's own call costs ~2.4 µs: the Go runtime runs inside the guest);
// "c" is the freestanding C guest samples/wasm/c-echo, which speaks
// MessagePack and copies the bytes of params.value into its result, so its
// own cost is a bounds-checked scan of the call; "rust" is the same in Rust
// without crates (samples/wasm/rust-echo).
func echoBenchGuests() []echoBenchGuest {
	return []echoBenchGuest{
		{"go", "conformance.wasm", "echo"},
		{"c", "c-echo.wasm", "c-echo"},
		{"rust", "rust-echo.wasm", "rust-echo"},
	}
}

// newWASMBenchHost is a host with the whole pipeline on (grants, rate
// limits, params schema, deadline, result normalization, an audit log in a
// file) serving the WASM conformance guest on the named engine.
func newWASMBenchHost(b *testing.B, engine string) *host.Host {
	return newWASMBenchHostWith(b, engine, "conformance.wasm", func(p abi.Provider) abi.Provider { return p })
}

// withAudit and noAudit are the last argument of newWASMBenchHostAudit.
const withAudit, noAudit = true, false

// watched hides a provider's abi.DeadlineKeeper, so that the host serves
// it on a watcher goroutine with a timer per call (host.callWatched): the
// cost the bypass for deadline keepers saves.
type watched struct{ abi.Provider }

// newWASMBenchHostWith serves build/wasm/<file> on engine, wrapped by wrap,
// with its pool warmed (4 instances: instantiation is not what the
// benchmarks measure).
func newWASMBenchHostWith(b *testing.B, engine, file string, wrap func(abi.Provider) abi.Provider) *host.Host {
	return newWASMBenchHostAudit(b, engine, file, wrap, withAudit)
}

// newWASMBenchHostAudit is newWASMBenchHostWith with or without the audit
// log (the audit writer hashes and writes every call on a goroutine of its
// own; the NoAudit benchmarks show what the rest costs).
func newWASMBenchHostAudit(b *testing.B, engine, file string, wrap func(abi.Provider) abi.Provider, auditOn bool) *host.Host {
	b.Helper()
	path := filepath.Join(testutil.RepoRoot(b), "build", "wasm", file)
	if _, err := os.Stat(path); err != nil {
		b.Fatalf("%s is missing: run `make samples`", path)
	}
	h := newPipelineBenchHost(b, auditOn)
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
	if w, ok := p.(interface {
		Warm(context.Context, int) error
	}); ok {
		if err := w.Warm(context.Background(), 4); err != nil {
			b.Fatal(err)
		}
	}
	if err := h.AddProvider(context.Background(), wrap(p), host.ProviderMeta{Source: path, Trust: abi.System}); err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkPipelineWASMEcho: host.Call of a WASM guest's echo with params
// {"value":"hello"} given as a Go map (as an in-process caller does):
// lookup, capability check, rate limit, schema validation, deadline, pool,
// MessagePack encode into guest memory, the guest's own work, result
// decode, audit record (hashed and written by the audit writer on its own
// goroutine: with -cpu 1 its work shares the one core). Sub-benchmarks /<engine>/<guest>: one per engine compiled in
// (wasm.Engines(): wazero always, wasmtime with -tags wasmtime) and per
// guest (echoBenchGuests). BenchmarkRawWazeroEcho/wazero/<guest> is the
// same guest export with the same params without the host: the ratio
// pipeline ÷ raw is in docs/abi.md ("Performance").
func BenchmarkPipelineWASMEcho(b *testing.B) {
	for _, engine := range wasm.Engines() {
		for _, g := range echoBenchGuests() {
			b.Run(engine+"/"+g.Name, func(b *testing.B) {
				h := newWASMBenchHostWith(b, engine, g.File, func(p abi.Provider) abi.Provider { return p })
				ctx := context.Background()
				params := map[string]any{"value": benchEchoValue}
				call := &abi.ToolCall{Caller: "bench", Tool: g.Tool, Params: params}
				wasmCPU(b, func() {
					for range b.N {
						if _, err := h.Call(ctx, call); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}

// BenchmarkPipelineWASMEchoNoAudit is BenchmarkPipelineWASMEcho/wazero
// without the audit log.
func BenchmarkPipelineWASMEchoNoAudit(b *testing.B) {
	for _, g := range echoBenchGuests() {
		b.Run(wasm.EngineWazero+"/"+g.Name, func(b *testing.B) {
			h := newWASMBenchHostAudit(b, wasm.EngineWazero, g.File, func(p abi.Provider) abi.Provider { return p }, noAudit)
			call := &abi.ToolCall{Caller: "bench", Tool: g.Tool, Params: map[string]any{"value": benchEchoValue}}
			wasmCPU(b, func() {
				for range b.N {
					if _, err := h.Call(context.Background(), call); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkPipelineWASMEchoWatched is BenchmarkPipelineWASMEcho/wazero/go
// with the provider's DeadlineKeeper hidden: the host then runs each call on
// a goroutine of its own with a timer (the state before the bypass).
func BenchmarkPipelineWASMEchoWatched(b *testing.B) {
	h := newWASMBenchHostWith(b, wasm.EngineWazero, "conformance.wasm", func(p abi.Provider) abi.Provider { return watched{p} })
	ctx := context.Background()
	call := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: map[string]any{"value": benchEchoValue}}
	wasmCPU(b, func() {
		for range b.N {
			if _, err := h.Call(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// wasmCPU reports cpu-ns/op (process CPU time per op) beside the wall
// clock: on the shared 2-core machine wall time mostly measures waiting.
// It resets the timer first, so set-up before it (hosts, pools) is not
// timed.
func wasmCPU(b *testing.B, run func()) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testutil.ProcessCPU()
	run()
	syncBenchAudit(b) // the audit writer's work belongs to these calls
	b.StopTimer()
	cpu := int64(testutil.ProcessCPU() - cpu0)
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkPipelineWASMEchoParallel is the same call from GOMAXPROCS
// goroutines (run with -cpu 1,2 for the pool's scaling), per engine and
// guest.
func BenchmarkPipelineWASMEchoParallel(b *testing.B) {
	for _, engine := range wasm.Engines() {
		for _, g := range echoBenchGuests() {
			b.Run(engine+"/"+g.Name, func(b *testing.B) {
				h := newWASMBenchHostWith(b, engine, g.File, func(p abi.Provider) abi.Provider { return p })
				ctx := context.Background()
				wasmCPU(b, func() {
					b.RunParallel(func(pb *testing.PB) {
						call := &abi.ToolCall{Caller: "bench", Tool: g.Tool, Params: map[string]any{"value": benchEchoValue}}
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
}

// BenchmarkRawWazeroEcho calls the same guest export (aios_call) with the
// same params as BenchmarkPipelineWASMEcho/wazero/<guest>, already encoded
// and already in guest memory, on a plain wazero runtime (no
// instrumentation, no pool, no host): the floor the pipeline is compared
// with.
func BenchmarkRawWazeroEcho(b *testing.B) {
	for _, g := range echoBenchGuests() {
		b.Run("wazero/"+g.Name, func(b *testing.B) { rawWazeroEcho(b, g) })
	}
}

// rawEchoCall is the encoded ToolCall both raw benchmarks hand the guest:
// what the host sends for the pipeline's call.
func rawEchoCall(tool string) []byte {
	msg := wire.AppendMapHeader(nil, 3)
	msg = wire.AppendString(wire.AppendString(msg, "id"), "c1")
	msg = wire.AppendString(wire.AppendString(msg, "tool"), tool)
	msg, _ = wire.AppendValue(wire.AppendString(msg, "params"), map[string]any{"value": benchEchoValue})
	return msg
}

// checkRawEcho fails b unless out is the ToolResult {"value":{"value":"hello"}}.
func checkRawEcho(b *testing.B, out []byte) {
	if v, err := wire.DecodeValue(out); err != nil || v.(map[string]any)["value"].(map[string]any)["value"] != benchEchoValue {
		b.Fatalf("raw echo returned %v %v", v, err)
	}
}

func rawWazeroEcho(b *testing.B, g echoBenchGuest) {
	path := filepath.Join(testutil.RepoRoot(b), "build", "wasm", g.File)
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
	msg := rawEchoCall(g.Tool)
	res, err := mod.ExportedFunction("aios_alloc").Call(ctx, uint64(len(msg)))
	if err != nil {
		b.Fatal(err)
	}
	ptr := uint32(res[0])
	mod.Memory().Write(ptr, msg)
	fn := mod.ExportedFunction("aios_call")
	stack := make([]uint64, 2)
	wasmCPU(b, func() {
		for range b.N {
			stack[0], stack[1] = uint64(ptr), uint64(len(msg))
			if err := fn.CallWithStack(ctx, stack); err != nil {
				b.Fatal(err)
			}
		}
	})
	out, _ := mod.Memory().Read(uint32(stack[0]>>32), uint32(stack[0]))
	checkRawEcho(b, out)
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
