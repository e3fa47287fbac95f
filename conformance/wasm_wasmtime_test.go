//go:build wasmtime

package conformance

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// The WASM conformance guest (build/wasm/conformance.wasm) on the wasmtime
// engine: row wasm@wasmtime.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeWASM + "@wasmtime",
		Load: func(t *testing.T) (abi.Provider, error) {
			path, err := artifact(t, "wasm/conformance.wasm")
			if err != nil {
				return nil, err
			}
			l, err := wasm.NewEngineLoader(wasm.EngineWasmtime, wasm.Options{Config: wasm.Config{CacheDir: wasmCacheDir()}})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { _ = l.(interface{ Close() error }).Close() })
			return l.Load(context.Background(), abi.Source{Path: path})
		},
	})
}
