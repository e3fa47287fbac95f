//go:build wasmtime

package conformance

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// The WASM conformance guest (build/wasm/conformance.wasm) on the wasmtime
// engine: row wasm@wasmtime. As on wazero (wasm_test.go), the loader runs
// with runtimes.wasm.clock: real: the table's "sleep" busy-waits on the
// guest's monotonic clock, and under the virtual clock (1 ns a reading) its
// 1 ms sleep is a million clock_time_get host calls — about 8 s on wasmtime
// under the race detector, near the harness's 10 s deadline, and one
// clean-clone CI run failed the timeout row on it.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeWASM + "@wasmtime",
		Load: func(t *testing.T) (abi.Provider, error) {
			path, err := artifact(t, "wasm/conformance.wasm")
			if err != nil {
				return nil, err
			}
			l, err := wasm.NewEngineLoader(wasm.EngineWasmtime, wasm.Options{Config: wasm.Config{Clock: "real", CacheDir: wasmCacheDir()}})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { _ = l.(interface{ Close() error }).Close() })
			return l.Load(context.Background(), abi.Source{Path: path})
		},
	})
}
