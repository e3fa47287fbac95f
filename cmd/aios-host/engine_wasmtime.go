//go:build wasmtime

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aios-host/aios-host/abi"
	wtcomp "github.com/aios-host/aios-host/component/wasmtime"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// componentLoader returns the component loader for runtimes.wasm.engine.
func componentLoader(cfg *config.Config, log *slog.Logger) (abi.Loader, error) {
	switch e := wasmEngine(cfg); e {
	case "", "wazero":
		return wazeroComponentLoader(cfg, log)
	case "wasmtime":
		var wcfg wasm.Config
		if err := cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg); err != nil {
			return nil, err
		}
		wt := wtcomp.NewLoader(wtcomp.Options{Logger: log, CacheDir: componentCacheDir(cfg), MemoryLimitPages: wcfg.MemoryLimitPages, PoolSize: wcfg.PoolSize, LoadTimeout: wcfg.LoadTimeout, ProviderLimits: wcfg.LimitsFor,
			RealClock: wcfg.Clock == "real", RealRandom: wcfg.Random == "real"})
		wz, err := wazeroComponentLoader(cfg, log)
		if err != nil {
			return nil, err
		}
		return &trustSplit{trusted: wt, untrusted: wz, log: log, all: wcfg.UntrustedComponents == wasm.UntrustedComponentsEngine}, nil
	default:
		return nil, fmt.Errorf("runtimes.wasm.engine: %q is not one of wazero, wasmtime", e)
	}
}

// trustSplit loads components from unsigned files (trust Untrusted) with
// the wazero loader and the others with wasmtime: wasmtime lifts a
// component's results itself, in Rust, before the host sees them, so the
// lift budget that bounds the host memory of a result on wazero cannot
// apply there (docs/components.md). runtimes.wasm.untrusted_components:
// engine turns this off.
//
// A component that wasmtime refuses for its flags results
// (wtcomp.FlagResultsError: wasmtime v39 aborts the process on a flags
// value with a bit past its labels) is loaded with the wazero loader too,
// whatever its trust.
type trustSplit struct {
	trusted, untrusted abi.Loader
	log                *slog.Logger
	all                bool // untrusted_components: engine (wasmtime for every component)
}

func (t *trustSplit) Runtime() string      { return t.trusted.Runtime() }
func (t *trustSplit) Extensions() []string { return t.trusted.Extensions() }

func (t *trustSplit) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	l := src.Logger
	if l == nil {
		l = t.log
	}
	if t.all || src.Trust != abi.Untrusted {
		p, err := t.trusted.Load(ctx, src)
		var fe *wtcomp.FlagResultsError
		if !errors.As(err, &fe) {
			return p, err
		}
		l.Info("component loaded on wazero: "+strings.TrimPrefix(fe.Error(), "component "+fe.Name+": "), "path", src.Path)
		return t.untrusted.Load(ctx, src)
	}
	l.Info("component from an unsigned file: loaded on wazero, whose lift budget bounds its results (runtimes.wasm.untrusted_components: engine runs it on wasmtime)", "path", src.Path)
	return t.untrusted.Load(ctx, src)
}

// Close closes the wasmtime loader (the wazero one holds nothing to close).
func (t *trustSplit) Close() error {
	if c, ok := t.trusted.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}
