package python_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
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

// BenchmarkPipelinePythonWire is BenchmarkPipelinePythonEcho in each wire
// format of the worker protocol (runtimes.python.wire): the default
// MessagePack against JSON, the debugging format.
// The records sub-benchmarks echo 50 records (about 3 KB) instead of
// "hello": what the codecs cost beyond the round trip.
func BenchmarkPipelinePythonWire(b *testing.B) {
	var records []any
	for i := range 50 {
		records = append(records, map[string]any{"id": int64(i), "name": fmt.Sprintf("record-%d", i), "score": float64(i) + 0.5,
			"tags": []any{"a", "bé"}, "ok": i%2 == 0, "note": nil})
	}
	for _, payload := range []struct {
		name  string
		value any
	}{{"", "hello"}, {"records-", records}} {
		for _, wf := range []string{"msgpack", "json"} {
			b.Run(payload.name+wf, func(b *testing.B) {
				benchEchoValue(b, func(c *python.Config) { c.Wire = wf }, payload.value)
			})
		}
	}
}

func benchEcho(b *testing.B, pc func(*python.Config)) { benchEchoValue(b, pc, "hello") }

func benchEchoValue(b *testing.B, pc func(*python.Config), value any) {
	rt := newRuntime(b, pc)
	h := newHost(b, rt)
	src := filepath.Join(testutil.RepoRoot(b), "samples", "python", "conformance.py")
	prov, err := h.LoadFile(context.Background(), src, host.ProviderMeta{Source: src, Trust: abi.Untrusted})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	params := map[string]any{"value": value}
	if v, err := call(h, "echo", params, 0); err != nil || !reflect.DeepEqual(v, params) {
		b.Fatalf("echo: %#v, %v", v, err)
	}
	pids := prov.(*python.Provider).WorkerPIDs()
	if want := newRuntimeConfigWire(pc); len(prov.(*python.Provider).WireFormats()) != 1 || prov.(*python.Provider).WireFormats()[0] != want {
		b.Fatalf("the worker speaks %q, want %s", prov.(*python.Provider).WireFormats(), want)
	}
	b.ReportAllocs()
	host0, workers0 := hostCPU(), workersCPU(pids)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: "echo", Params: params})
		if err != nil {
			b.Fatal(err)
		}
		if s, ok := value.(string); ok && v.(map[string]any)["value"] != s {
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
	return int64(testutil.ProcessCPU())
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
		name      string
		pc        func(*python.Config)
		noMsgpack bool
	}{
		{"sandboxed", nil, false},
		{"unconfined", func(c *python.Config) { c.Sandbox = &off }, false},
		// A worker that does not import msgpack (offers json only): what
		// the import costs a start.
		{"sandboxed-no-msgpack", nil, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rt := newRuntime(b, tc.pc)
			if tc.noMsgpack {
				python.OfferJSONOnly(rt)
			}
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

// newRuntimeConfigWire is the wire format pc asks for (msgpack unless it
// says json).
func newRuntimeConfigWire(pc func(*python.Config)) string {
	c := python.DefaultConfig()
	if pc != nil {
		pc(&c)
	}
	if c.Wire == "json" {
		return "json"
	}
	return "msgpack"
}
