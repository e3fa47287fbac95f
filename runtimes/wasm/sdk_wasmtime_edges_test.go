//go:build wasmtime

package wasm

import "testing"

func TestWasmtimeLoadErrorQuotesGuestPanic(t *testing.T) {
	testLoadErrorQuotesGuestPanic(t, newWasmtimeTestLoader(t, Config{}))
}
