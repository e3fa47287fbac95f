package wasm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// processCPU is this process's user+system CPU time: on a shared machine
// wall-clock ns/op mostly measures waiting for a CPU, cpu-ns/op the work.
func processCPU() time.Duration {
	return testutil.ProcessCPU()
}

func withCPU(b *testing.B, run func()) {
	b.ReportAllocs()
	b.ResetTimer() // set-up before run is not timed
	start := processCPU()
	run()
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// echoGuests are the guests of the echo benchmarks: the Go SDK
// conformance guest (its Go runtime costs ~2.4 µs a call inside the guest)
// and the guests without an SDK in C and Rust (MessagePack; they copy the
// bytes of params.value), each with its echo tool.
func echoGuests() []struct{ name, file, tool string } {
	return []struct{ name, file, tool string }{
		{"go", "conformance", "echo"},
		{"c", "c-echo", "c-echo"},
		{"rust", "rust-echo", "rust-echo"},
	}
}

// BenchmarkProviderEcho is the runtime alone (no host pipeline):
// Provider.Call of each guest's echo with {"value":"hello"}.
func BenchmarkProviderEcho(b *testing.B) {
	for _, g := range echoGuests() {
		b.Run(g.name, func(b *testing.B) {
			l := newTestLoader(b, Config{PoolSize: 4}, nil)
			p := load(b, l, builtGuest(b, g.file))
			env := newFakeEnv(p, 2)
			params := map[string]any{"value": "hello"}
			c := &abi.ToolCall{ID: "c1", Tool: g.tool, Params: params, Deadline: time.Now().Add(time.Hour)}
			env.call = c
			ctx := context.Background()
			withCPU(b, func() {
				for b.Loop() {
					if _, err := p.Call(ctx, c, env); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkProviderEchoParallel: the same from GOMAXPROCS goroutines; run
// with -cpu 1,2 to see the pool scale.
func BenchmarkProviderEchoParallel(b *testing.B) {
	for _, g := range echoGuests() {
		b.Run(g.name, func(b *testing.B) {
			l := newTestLoader(b, Config{PoolSize: 4}, nil)
			p := load(b, l, builtGuest(b, g.file))
			ctx := context.Background()
			if err := p.Warm(ctx, 4); err != nil {
				b.Fatal(err)
			}
			withCPU(b, func() {
				b.RunParallel(func(pb *testing.PB) {
					env := newFakeEnv(p, 2)
					c := &abi.ToolCall{ID: "c1", Tool: g.tool, Params: map[string]any{"value": "hello"}, Deadline: time.Now().Add(time.Hour)}
					env.call = c
					for pb.Next() {
						if _, err := p.Call(ctx, c, env); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		})
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

// BenchmarkRestart50WASM: a host restart with 50 WASM providers (copies of
// the Go conformance guest under 50 provider ids) and a warm compile cache
// on disk: new Loader, 50 × Load (compile-cache hit, instrumentation cache
// hit, instantiate, _initialize, aios_register) until every provider can
// serve. One op = the whole restart. The loads run side by side, as many at
// a time as discovery's initial scan runs them (GOMAXPROCS, at least 2).
func BenchmarkRestart50WASM(b *testing.B) { benchRestart50(b, max(2, runtime.GOMAXPROCS(0))) }

// BenchmarkRestart50WASMSequential is the same restart with one load at a
// time, as the initial scan did before it loaded side by side.
func BenchmarkRestart50WASMSequential(b *testing.B) { benchRestart50(b, 1) }

func benchRestart50(b *testing.B, workers int) {
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
		provs := make([]abi.Provider, len(paths))
		errs := make([]error, len(paths))
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		for i, path := range paths {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				provs[i], errs[i] = l.Load(context.Background(), abi.Source{Path: path, ProviderID: fmt.Sprintf("org.bench.p%02d", i)})
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
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
