//go:build wasmtime

package main

import (
	"fmt"
	"log/slog"

	"github.com/aios-host/aios-host/abi"
	wtcomp "github.com/aios-host/aios-host/component/wasmtime"
	"github.com/aios-host/aios-host/config"
)

// componentLoader returns the component loader for runtimes.wasm.engine.
func componentLoader(cfg *config.Config, log *slog.Logger) (abi.Loader, error) {
	switch e := wasmEngine(cfg); e {
	case "", "wazero":
		return wazeroComponentLoader(cfg, log)
	case "wasmtime":
		return wtcomp.NewLoader(wtcomp.Options{Logger: log, CacheDir: componentCacheDir(cfg)}), nil
	default:
		return nil, fmt.Errorf("runtimes.wasm.engine: %q is not one of wazero, wasmtime", e)
	}
}
