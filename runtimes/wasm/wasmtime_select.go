//go:build wasmtime

package wasm

import (
	"fmt"

	"github.com/aios-host/aios-host/abi"
)

// Engines lists the engines compiled into this binary: wazero always,
// wasmtime with the build tag "wasmtime".
func Engines() []string { return []string{EngineWazero, EngineWasmtime} }

// NewEngineLoader returns the core-module loader on the named engine ("" is
// wazero, the default).
func NewEngineLoader(engine string, opts Options) (abi.Loader, error) {
	switch engine {
	case "", EngineWazero:
		return NewLoader(opts)
	case EngineWasmtime:
		return NewWasmtimeLoader(opts)
	}
	return nil, fmt.Errorf("runtimes.wasm.engine: %q is not one of %q", engine, Engines())
}
