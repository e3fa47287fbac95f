//go:build wasmtime

package conformance

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	wtcomp "github.com/aios-host/aios-host/component/wasmtime"
	"github.com/aios-host/aios-host/host"
)

// engineBenchHost is the pipeline benchmark host (no audit log: the
// engines are compared) with the provider from load.
func engineBenchHost(b *testing.B, load func() (abi.Provider, error)) *host.Host {
	b.Helper()
	h := newPipelineBenchHost(b, false)
	p, err := load()
	if err != nil {
		b.Fatal(err)
	}
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "bench", Trust: abi.System}); err != nil {
		b.Fatal(err)
	}
	return h
}

func benchCall(b *testing.B, h *host.Host, call *abi.ToolCall) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Call(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

// The core-module engines are compared by BenchmarkPipelineWASMEcho/{wazero,
// wasmtime} (wasm_test.go), which runs once per engine compiled in.

// BenchmarkPipelineComponentEchoEngine: the same call of the component
// conformance provider (C, a JSON tool) on each engine.
func BenchmarkPipelineComponentEchoEngine(b *testing.B) {
	path := filepath.Join(testutil.RepoRoot(b), "build", "components", "conformance.wasm")
	loaders := map[string]func() abi.Loader{
		"wazero": func() abi.Loader { return component.NewLoader(component.Options{}) },
		"wasmtime": func() abi.Loader {
			l := wtcomp.NewLoader(wtcomp.Options{})
			b.Cleanup(func() { _ = l.Close() })
			return l
		},
	}
	for _, engine := range []string{"wazero", "wasmtime"} {
		b.Run(engine, func(b *testing.B) {
			h := engineBenchHost(b, func() (abi.Provider, error) {
				return loaders[engine]().Load(context.Background(), abi.Source{Path: path})
			})
			b.Run("echo", func(b *testing.B) {
				benchCall(b, h, &abi.ToolCall{Caller: "bench", Tool: "echo", Params: map[string]any{"value": benchEchoValue}})
			})
			b.Run("add", func(b *testing.B) {
				benchCall(b, h, &abi.ToolCall{Caller: "bench", Tool: "add", Params: map[string]any{"a": int64(40), "b": int64(2)}})
			})
		})
	}
}
