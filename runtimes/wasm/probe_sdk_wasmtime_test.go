//go:build wasmtime

package wasm

import "testing"

func TestProbeWasmtimeLoadErrorQuotesGuestPanic(t *testing.T) {
	testLoadErrorQuotesGuestPanic(t, newWasmtimeTestLoader(t, Config{}))
}
