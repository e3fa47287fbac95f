package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// processCPU is this process's user+system CPU time: on a shared machine
// wall-clock ns/op mostly measures waiting for a CPU, cpu-ns/op the work.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func withCPU(b *testing.B, run func()) {
	b.ReportAllocs()
	start := processCPU()
	run()
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkProviderEcho is the runtime alone (no host pipeline): Provider.Call
// of the Go conformance guest's echo with {"value":"hello"}.
func BenchmarkProviderEcho(b *testing.B) {
	l := newTestLoader(b, Config{PoolSize: 4}, nil)
	p := load(b, l, builtGuest(b, "conformance"))
	env := newFakeEnv(p, 2)
	params := map[string]any{"value": "hello"}
	c := &abi.ToolCall{ID: "c1", Tool: "echo", Params: params, Deadline: time.Now().Add(time.Hour)}
	env.call = c
	ctx := context.Background()
	withCPU(b, func() {
		for b.Loop() {
			if _, err := p.Call(ctx, c, env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkProviderEchoParallel: the same from GOMAXPROCS goroutines; run
// with -cpu 1,2 to see the pool scale.
func BenchmarkProviderEchoParallel(b *testing.B) {
	l := newTestLoader(b, Config{PoolSize: 4}, nil)
	p := load(b, l, builtGuest(b, "conformance"))
	ctx := context.Background()
	warm(b, p, 4)
	withCPU(b, func() {
		b.RunParallel(func(pb *testing.PB) {
			env := newFakeEnv(p, 2)
			c := &abi.ToolCall{ID: "c1", Tool: "echo", Params: map[string]any{"value": "hello"}, Deadline: time.Now().Add(time.Hour)}
			env.call = c
			for pb.Next() {
				if _, err := p.Call(ctx, c, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// warm fills the pool with n instances so a benchmark does not time
// instantiation.
func warm(b *testing.B, p *Provider, n int) {
	var insts []*instance
	for range n {
		inst, err := p.get(context.Background(), &abi.ToolCall{Tool: "warm"})
		if err != nil {
			b.Fatal(err)
		}
		insts = append(insts, inst)
	}
	for _, inst := range insts {
		p.put(inst)
	}
}

// BenchmarkProviderAddTyped: a typed SDK handler (params decoded to generic
// values in the guest, converted to a struct, result built and encoded).
func BenchmarkProviderAddTyped(b *testing.B) {
	l := newTestLoader(b, Config{PoolSize: 4}, nil)
	p := load(b, l, builtGuest(b, "conformance"))
	env := newFakeEnv(p, 2)
	c := &abi.ToolCall{ID: "c1", Tool: "add", Params: map[string]any{"a": int64(1), "b": int64(2)}, Deadline: time.Now().Add(time.Hour)}
	env.call = c
	ctx := context.Background()
	withCPU(b, func() {
		for b.Loop() {
			if _, err := p.Call(ctx, c, env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkProviderEchoC is the freestanding C guest (JSON encoding).
func BenchmarkProviderEchoC(b *testing.B) {
	l := newTestLoader(b, Config{PoolSize: 4}, nil)
	p := load(b, l, builtGuest(b, "c-echo"))
	env := newFakeEnv(p, 2)
	c := &abi.ToolCall{ID: "c1", Tool: "c-echo", Params: map[string]any{"value": "hello"}, Deadline: time.Now().Add(time.Hour)}
	env.call = c
	ctx := context.Background()
	withCPU(b, func() {
		for b.Loop() {
			if _, err := p.Call(ctx, c, env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRestart50WASM: a host restart with 50 WASM providers (copies of
// the Go conformance guest under 50 provider ids) and a warm compile cache
// on disk: new Loader, 50 × Load (compile-cache hit, instrumentation cache
// hit, instantiate, _initialize, aios_register) until every provider can
// serve. One op = the whole restart.
func BenchmarkRestart50WASM(b *testing.B) {
	src := builtGuest(b, "conformance")
	bin, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var paths []string
	for i := range 50 {
		p := filepath.Join(dir, fmt.Sprintf("p%02d.wasm", i))
		if err := os.WriteFile(p, bin, 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	cache := filepath.Join(dir, "cache")
	restart := func() {
		l, err := NewLoader(Options{Config: Config{CacheDir: cache}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		var provs []abi.Provider
		for i, path := range paths {
			p, err := l.Load(context.Background(), abi.Source{Path: path, ProviderID: fmt.Sprintf("org.bench.p%02d", i)})
			if err != nil {
				b.Fatal(err)
			}
			provs = append(provs, p)
		}
		for _, p := range provs {
			p.Close()
		}
		l.Close()
	}
	restart() // warm the on-disk caches
	withCPU(b, func() {
		for b.Loop() {
			restart()
		}
	})
}
