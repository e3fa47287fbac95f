package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestFlagResultsComponentOnWazero: on the wasmtime engine, a component
// a tool of which returns flags (kitchen) is loaded on wazero, whatever
// its trust and runtimes.wasm.untrusted_components: wasmtime v39 aborts
// the host process on a flags value with a bit past its labels.
func TestFlagResultsComponentOnWazero(t *testing.T) {
	if !slices.Contains(wasm.Engines(), wasm.EngineWasmtime) {
		t.Skip("wasmtime not compiled in (make test-wasmtime runs this)")
	}
	kitchen := builtSample(t, "components/kitchen.wasm")
	hello := builtSample(t, "components/hello.wasm")
	for _, untrusted := range []string{"", wasm.UntrustedComponentsEngine} {
		cfg := config.Default()
		cfg.Data = t.TempDir()
		if untrusted != "" {
			cfg.Runtimes["wasm"] = withKey(cfg.Runtimes["wasm"], "untrusted_components", untrusted)
		}
		if err := setWasmEngine(cfg, wasm.EngineWasmtime); err != nil {
			t.Fatal(err)
		}
		var logs strings.Builder
		loaders, err := loaderTable(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		var dot abi.Loader
		for _, l := range loaders {
			if slices.Contains(l.Extensions(), ".wasm") {
				dot = l
			}
		}
		for _, tc := range []struct {
			path         string
			wantWasmtime bool
		}{{kitchen, false}, {hello, true}} {
			p, err := dot.Load(context.Background(), abi.Source{Path: tc.path, Trust: abi.Verified})
			if err != nil {
				t.Fatalf("untrusted_components %q: %s: %v", untrusted, tc.path, err)
			}
			got := fmt.Sprintf("%T", p)
			if isWasmtime := strings.Contains(got, "wasmtime"); isWasmtime != tc.wantWasmtime {
				t.Errorf("untrusted_components %q: %s loaded as %s", untrusted, tc.path, got)
			}
			_ = p.Close()
		}
		if !strings.Contains(logs.String(), "component loaded on wazero: tool transform returns flags perms (3 labels)") {
			t.Errorf("the fallback is not logged: %s", logs.String())
		}
		for _, l := range loaders {
			if c, ok := l.(interface{ Close() error }); ok {
				_ = c.Close()
			}
		}
	}
}
