//go:build !wasmtime

package main

import (
	"fmt"
	"log/slog"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// componentLoader returns the component loader for runtimes.wasm.engine.
// This binary has only wazero.
func componentLoader(cfg *config.Config, log *slog.Logger) (abi.Loader, error) {
	if e := wasmEngine(cfg); e != "" && e != "wazero" {
		return nil, fmt.Errorf("runtimes.wasm.engine: %q is not compiled into this binary (it has wazero; build with -tags wasmtime for wasmtime)", e)
	}
	return wazeroComponentLoader(cfg, log)
}
