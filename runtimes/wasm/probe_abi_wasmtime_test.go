//go:build wasmtime

package wasm

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func init() {
	probeEngines = append(probeEngines, probeEngine{"wasmtime", func(t *testing.T, cfg Config, src abi.Source) (abi.Provider, error) {
		return newWasmtimeTestLoader(t, cfg).Load(context.Background(), src)
	}})
	wz := probeInstances
	probeInstances = func(p abi.Provider) int {
		if w, ok := p.(*wtProvider); ok {
			return w.Instances()
		}
		return wz(p)
	}
}
