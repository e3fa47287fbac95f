package host

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// newBenchHost builds a host with the whole pipeline switched on: an agent
// with grants, a per-caller rate limit (high enough never to refuse), a
// schema, the default deadline and an audit log in a real file.
func newBenchHost(b *testing.B) *Host { return newBenchHostAudit(b, true) }

func newBenchHostAudit(b *testing.B, withAudit bool) *Host {
	b.Helper()
	dir := b.TempDir()
	cfg := config.Default()
	cfg.Data = dir
	cfg.Agents = map[string]config.Agent{
		"bench": {Grants: []string{"CallTool(*)", "ReadSpace(source)"}, Rate: &config.Rate{PerSecond: 1e12, Burst: 1 << 30}},
	}
	cfg.Limits.DefaultDeadline = 10 * time.Second
	cfg.RateLimits.Global = &config.Rate{PerSecond: 1e12, Burst: 1 << 30}
	cfg.RateLimits.PerTool = map[string]config.Rate{"echo": {PerSecond: 1e12, Burst: 1 << 30}}
	var aw *audit.Writer
	if withAudit {
		var err error
		aw, err = audit.Open(filepath.Join(dir, "audit.jsonl"), audit.Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	h, err := New(Options{Config: cfg, Audit: aw})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	p := native.New(abi.ProviderInfo{ID: "org.bench.echo"})
	p.MustRegister(abi.ToolDef{
		Name:               "echo",
		Version:            "1.0.0",
		Parameters:         obj(map[string]any{"msg": str, "n": integer}, "msg", "n"),
		CapabilityRequired: []string{"ReadSpace(source)"},
	}, func(_ context.Context, params any, _ abi.Env) (any, error) { return params, nil })
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "bench", Trust: abi.System}); err != nil {
		b.Fatal(err)
	}
	return h
}

// processCPU returns the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	return testutil.ProcessCPU()
}

// reportCPU adds a cpu-ns/op metric: the process's CPU time per call,
// including background goroutines (the audit writer). On a machine shared
// with other work, wall-clock ns/op mostly measures waiting for a CPU;
// cpu-ns/op measures the work.
func reportCPU(b *testing.B, run func()) {
	b.Helper()
	b.ReportAllocs()
	start := processCPU()
	run()
	b.StopTimer()
	if n := b.N; n > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
	}
}

// BenchmarkPipelineNativeEcho measures the full pipeline (lookup, caps,
// rate limit, params size + schema, deadline, provider call, result check,
// audit to a file) for a native echo tool with small params.
func BenchmarkPipelineNativeEcho(b *testing.B) {
	h := newBenchHost(b)
	params := map[string]any{"msg": "hello", "n": int64(42)}
	ctx := context.Background()
	reportCPU(b, func() {
		b.RunParallel(func(pb *testing.PB) {
			call := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: params}
			for pb.Next() {
				if _, err := h.Call(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
		if h.audit != nil {
			_ = h.audit.Flush() // the audit writer's work belongs to these calls
		}
	})
}

// BenchmarkPipelineNativeEchoNoAudit is the same pipeline without an audit
// log: the cost on the caller's goroutine alone, without the audit writer's
// hashing and file writes competing for the CPU.
func BenchmarkPipelineNativeEchoNoAudit(b *testing.B) {
	h := newBenchHostAudit(b, false)
	params := map[string]any{"msg": "hello", "n": int64(42)}
	ctx := context.Background()
	reportCPU(b, func() {
		b.RunParallel(func(pb *testing.PB) {
			call := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: params}
			for pb.Next() {
				if _, err := h.Call(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
		if h.audit != nil {
			_ = h.audit.Flush() // the audit writer's work belongs to these calls
		}
	})
}

// BenchmarkPipelineNested measures a native tool calling another through
// Env.CallTool (two passes of the pipeline, grants intersection).
func BenchmarkPipelineNested(b *testing.B) {
	h := newBenchHost(b)
	p := native.New(abi.ProviderInfo{ID: "org.bench.nested", Capabilities: []string{"CallTool(*)", "ReadSpace(*)"}})
	p.MustRegister(abi.ToolDef{Name: "outer"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		return env.CallTool(ctx, "echo", "", params)
	})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		b.Fatal(err)
	}
	params := map[string]any{"msg": "hello", "n": int64(42)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Call(ctx, &abi.ToolCall{Caller: "bench", Tool: "outer", Params: params}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkContextWithTimeout is the per-call cost callCtx avoids.
func BenchmarkContextWithTimeout(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, cancel := context.WithTimeout(ctx, time.Second)
		_ = c.Err()
		cancel()
	}
}

// BenchmarkCallCtx is the host's deadline context alone, allocated on its
// own (the pipeline embeds it in the call frame, where it costs no
// allocation of its own).
func BenchmarkCallCtx(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c := newCallCtx(ctx, time.Now().Add(time.Second))
		_ = c.Err()
		c.release()
	}
}
