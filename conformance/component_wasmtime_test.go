//go:build wasmtime

package conformance

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	wtcomp "github.com/aios-host/aios-host/component/wasmtime"
)

// The component conformance provider (build/components/conformance.wasm)
// on the wasmtime engine: row component@wasmtime.
func init() {
	addFixture(fixture{
		Runtime: abi.RuntimeComponent + "@wasmtime",
		Load: func(t *testing.T) (abi.Provider, error) {
			path, err := artifact(t, "components/conformance.wasm")
			if err != nil {
				return nil, err
			}
			l := wtcomp.NewLoader(wtcomp.Options{})
			t.Cleanup(func() { _ = l.Close() })
			return l.Load(context.Background(), abi.Source{Path: path})
		},
	})
}
