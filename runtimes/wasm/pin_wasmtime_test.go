//go:build wasmtime

package wasm

import (
	"context"
	"os"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestWasmtimeLoaderChecksPinnedBytes is TestLoaderChecksPinnedBytes
// on the wasmtime engine.
func TestWasmtimeLoaderChecksPinnedBytes(t *testing.T) {
	signed, err := os.ReadFile(builtGuest(t, "c-echo"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(builtGuest(t, "rust-echo"))
	if err != nil {
		t.Fatal(err)
	}
	l := newWasmtimeTestLoader(t, Config{})
	testutil.PinSwap(t, signed, other, func(path, dir string, pins map[string]string) (func(), error) {
		p, err := l.Load(context.Background(), abi.Source{Path: path, Trust: abi.Verified, Unit: dir, Pinned: pins})
		if err != nil {
			return nil, err
		}
		return func() { p.Close() }, nil
	})
}
