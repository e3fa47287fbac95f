//go:build wasmtime

package wasm

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestWasmtimeLoadCancelStopsRegister is TestLoadCancelStopsRegister on
// the wasmtime engine.
func TestWasmtimeLoadCancelStopsRegister(t *testing.T) {
	checkLoadCancelStops(t, func(t *testing.T, cfg Config) abi.Loader { return newWasmtimeTestLoader(t, cfg) })
}
