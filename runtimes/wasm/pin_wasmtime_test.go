//go:build wasmtime

package wasm

import "testing"

// TestWasmtimeLoaderChecksPinnedBytes is TestLoaderChecksPinnedBytes
// on the wasmtime engine.
func TestWasmtimeLoaderChecksPinnedBytes(t *testing.T) {
	checkPinSwap(t, newWasmtimeTestLoader(t, Config{}))
}
