package python_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/python"
)

// BenchmarkPipelinePythonEcho is the full host pipeline (lookup, capability
// check, rate limit, params schema, provider call under a deadline, result
// normalize, no audit writer) to a warm worker of the python conformance
// provider. Params arrive as a decoded Go map {"value": "hello"}.
func BenchmarkPipelinePythonEcho(b *testing.B) { benchEcho(b, nil) }

// BenchmarkPipelinePythonEchoNoSpin is the same with runtimes.python.spin: 0
// (host and worker sleep at once while waiting for each other).
func BenchmarkPipelinePythonEchoNoSpin(b *testing.B) {
	benchEcho(b, func(c *python.Config) { c.Spin = 0 })
}

func benchEcho(b *testing.B, pc func(*python.Config)) {
	rt := newRuntime(b, pc)
	h := newHost(b, rt)
	src := filepath.Join(testutil.RepoRoot(b), "samples", "python", "conformance.py")
	prov, err := h.LoadFile(context.Background(), src, host.ProviderMeta{Source: src, Trust: abi.Untrusted})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	params := map[string]any{"value": "hello"}
	if _, err := call(h, "echo", params, 0); err != nil {
		b.Fatal(err)
	}
	pids := prov.(*python.Provider).WorkerPIDs()
	b.ReportAllocs()
	host0, workers0 := hostCPU(), workersCPU(pids)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: "echo", Params: params})
		if err != nil {
			b.Fatal(err)
		}
		if v.(map[string]any)["value"] != "hello" {
			b.Fatalf("echo returned %#v", v)
		}
	}
	b.StopTimer()
	// CPU time per call, less sensitive than wall time to the load of a
	// shared machine: the host process (all goroutines) and the worker.
	b.ReportMetric(float64(hostCPU()-host0)/float64(b.N)/1e3, "host-cpu-µs/op")
	b.ReportMetric(float64(workersCPU(pids)-workers0)/float64(b.N)/1e3, "worker-cpu-µs/op")
}

// hostCPU is the CPU time of this process in ns.
func hostCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// workersCPU is the CPU time of the given processes' main threads in ns
// (first field of /proc/PID/schedstat).
func workersCPU(pids []int) int64 {
	var total int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += n
		}
	}
	return total
}

// BenchmarkPythonColdStart is loading a provider from scratch: sandboxed
// spawn of CPython, SDK import, tool import, registration (the first
// Load's interpreter probe excluded), then Close.
func BenchmarkPythonColdStart(b *testing.B) {
	off := false
	for _, tc := range []struct {
		name string
		pc   func(*python.Config)
	}{
		{"sandboxed", nil},
		{"unconfined", func(c *python.Config) { c.Sandbox = &off }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rt := newRuntime(b, tc.pc)
			src := filepath.Join(testutil.RepoRoot(b), "samples", "python", "conformance.py")
			if err := rt.Probe(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := rt.Load(context.Background(), abi.Source{Path: src})
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Close()
			}
		})
	}
}
