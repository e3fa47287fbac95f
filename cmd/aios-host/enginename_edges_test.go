package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// runtimes.wasm.engine naming no engine at all ("v8", or "Wasmtime" with
// a capital) stops the host naming the key, the value and the engines
// there are. A binary built without wasmtime said of any such name that it
// "is not compiled into this binary" and to build with -tags wasmtime:
// a typo sent its user off to a cgo build that would not have helped.
// Only "wasmtime" itself, in such a binary, says how to get it.
func TestUnknownEngineInConfigNamed(t *testing.T) {
	for _, name := range []string{"v8", "Wasmtime", "wasmtime"} {
		cfg := config.Default()
		cfg.Data = t.TempDir()
		cfg.Runtimes["wasm"] = withKey(cfg.Runtimes["wasm"], "engine", name)
		loaders, err := loaderTable(cfg, slog.New(slog.DiscardHandler))
		_ = closeLoaders(loaders)
		compiledIn := false
		for _, e := range wasm.Engines() {
			compiledIn = compiledIn || e == name
		}
		if compiledIn {
			if err != nil {
				t.Errorf("engine %q: %v", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("engine %q: loaded", name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "runtimes.wasm.engine") || !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("engine %q: error %q does not name the key and the value", name, msg)
		}
		if name == wasm.EngineWasmtime {
			if !strings.Contains(msg, "-tags wasmtime") {
				t.Errorf("engine %q: error %q does not say how to get wasmtime", name, msg)
			}
			continue
		}
		if strings.Contains(msg, "not compiled into") || strings.Contains(msg, "-tags") {
			t.Errorf("engine %q: error %q speaks of a build, where the name is no engine", name, msg)
		}
		if !strings.Contains(msg, wasm.EngineWazero) || !strings.Contains(msg, wasm.EngineWasmtime) {
			t.Errorf("engine %q: error %q does not list the engines (wazero, wasmtime)", name, msg)
		}
	}
}
