//go:build !wasmtime

package main

import (
	"fmt"
	"log/slog"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// componentLoader returns the component loader for runtimes.wasm.engine.
// This binary has only wazero.
func componentLoader(cfg *config.Config, log *slog.Logger) (abi.Loader, error) {
	switch e := wasmEngine(cfg); e {
	case "", wasm.EngineWazero:
		return wazeroComponentLoader(cfg, log)
	case wasm.EngineWasmtime:
		return nil, fmt.Errorf("runtimes.wasm.engine: %q is not compiled into this binary (it has wazero; build with -tags wasmtime for wasmtime)", e)
	default:
		// As in a binary with wasmtime (engine_wasmtime.go): a name that
		// is no engine ("v8", "Wasmtime") was said not to be compiled in,
		// with the advice to build with -tags wasmtime
		// (TestUnknownEngineInConfigNamed).
		return nil, fmt.Errorf("runtimes.wasm.engine: %q is not one of wazero, wasmtime", e)
	}
}
