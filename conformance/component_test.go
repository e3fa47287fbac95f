package conformance

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/host"
)

// The component runtime's conformance provider: a C freestanding component
// (samples/components/conformance) built by `make samples`. Its loader runs
// with real clocks (runtimes.wasm.clock: real): the table's sleep busy-waits
// on the monotonic clock, which is fake (1 ms a reading) otherwise.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeComponent,
		Load: func(t *testing.T) (abi.Provider, error) {
			path, err := artifact(t, "components/conformance.wasm")
			if err != nil {
				return nil, err
			}
			return component.NewLoader(component.Options{RealClock: true}).Load(context.Background(), abi.Source{Path: path})
		},
	})
}

// newComponentBenchHost is a host with the whole pipeline on (grants, rate
// limits, params schema, deadline, result normalization, audit to a file when
// withAudit) serving the hello component (C freestanding).
func newComponentBenchHost(b *testing.B, withAudit bool, wrap func(abi.Provider) abi.Provider) *host.Host {
	b.Helper()
	path := filepath.Join(testutil.RepoRoot(b), "build", "components", "hello.wasm")
	if _, err := os.Stat(path); err != nil {
		b.Fatalf("%s is missing: run `make samples`", path)
	}
	h := newPipelineBenchHost(b, withAudit)
	p, err := component.NewLoader(component.Options{}).Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	if wrap != nil {
		p = wrap(p)
	}
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: path, Trust: abi.System}); err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkPipelineComponentRecord: host.Call of the hello component's
// `hello: func(g: greeting) -> result<string, string>` where greeting is
// record { name: string, times: u32 }, params given as a Go map (as an
// in-process caller does): lookup, capability check, rate limit, params
// schema validation, JSON → WIT value, Canonical ABI lowering (realloc into
// guest memory), the guest call, lifting, post-return, result
// normalization, audit.
func BenchmarkPipelineComponentRecord(b *testing.B) { benchComponentRecord(b, true, nil) }

// BenchmarkPipelineComponentRecordNoAudit is the same without an audit log:
// the pipeline and the component alone (the audit writer's hashing and
// encoding run on its own goroutine and show in cpu-ns/op above).
func BenchmarkPipelineComponentRecordNoAudit(b *testing.B) { benchComponentRecord(b, false, nil) }

// BenchmarkPipelineComponentRecordWatched is BenchmarkPipelineComponentRecord
// with the provider's DeadlineKeeper hidden (see watched): a goroutine and a
// timer per call in the host, as before the bypass.
func BenchmarkPipelineComponentRecordWatched(b *testing.B) {
	benchComponentRecord(b, true, func(p abi.Provider) abi.Provider { return watched{p} })
}

func benchComponentRecord(b *testing.B, withAudit bool, wrap func(abi.Provider) abi.Provider) {
	h := newComponentBenchHost(b, withAudit, wrap)
	ctx := context.Background()
	call := &abi.ToolCall{Caller: "bench", Tool: "hello", Params: map[string]any{"g": map[string]any{"name": "wörld", "times": int64(2)}}}
	if got, err := h.Call(ctx, call); err != nil || got != "hello, wörldwörld" {
		b.Fatalf("hello = %v, %v", got, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := componentCPU()
	for range b.N {
		if _, err := h.Call(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
	syncBenchAudit(b) // the audit writer's work belongs to these calls
	b.StopTimer()
	b.ReportMetric(float64(componentCPU()-start)/float64(b.N), "cpu-ns/op")
}

// componentCPU is the process's CPU time (user + system): on a machine
// shared with other work, wall-clock ns/op mostly measures waiting for a
// CPU, cpu-ns/op the work (including wazero's watcher goroutines).
func componentCPU() time.Duration {
	return testutil.ProcessCPU()
}
