package wasm

import (
	"context"
	"os"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLoaderChecksPinnedBytes: discovery hashes a signed provider's
// artifact, then the loader reads the file again. A file swapped between
// the two reads (and back before discovery's second hash) must not run:
// the loader checks the bytes it compiles against abi.Source.Pinned.
func TestLoaderChecksPinnedBytes(t *testing.T) {
	checkPinSwap(t, newTestLoader(t, Config{}, nil))
}

// checkPinSwap runs testutil.PinSwap on l with two built guests.
func checkPinSwap(t *testing.T, l interface {
	Load(context.Context, abi.Source) (abi.Provider, error)
}) {
	t.Helper()
	signed, err := os.ReadFile(builtGuest(t, "c-echo"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(builtGuest(t, "rust-echo"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.PinSwap(t, signed, other, func(path, dir string, pins map[string]string) (func(), error) {
		p, err := l.Load(context.Background(), abi.Source{Path: path, Trust: abi.Verified, Unit: dir, Pinned: pins})
		if err != nil {
			return nil, err
		}
		return func() { p.Close() }, nil
	})
}
