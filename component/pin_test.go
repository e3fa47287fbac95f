package component

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestComponentLoaderChecksPinnedBytes: a signed component's file
// swapped after discovery hashed it (and before the loader reads it) must
// not run: the loader checks the bytes it compiles against the pins.
func TestComponentLoaderChecksPinnedBytes(t *testing.T) {
	signed, other := sample(t, "hello"), sample(t, "kitchen")
	l := NewLoader(Options{CacheDir: testCacheDir()})
	testutil.PinSwap(t, signed, other, func(path, dir string, pins map[string]string) (func(), error) {
		p, err := l.Load(context.Background(), abi.Source{Path: path, Trust: abi.Verified, Unit: dir, Pinned: pins})
		if err != nil {
			return nil, err
		}
		return func() { p.Close() }, nil
	})
}
