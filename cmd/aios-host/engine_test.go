package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// builtSample is build/<rel> at the repository root; it fails the test
// when the samples are not built.
func builtSample(t *testing.T, rel string) string {
	t.Helper()
	root := config.RepoRoot()
	if root == "" {
		t.Fatal("repository root not found")
	}
	p := filepath.Join(root, "build", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s missing: run `make samples`", p)
	}
	return p
}

// The engine chosen by --engine / runtimes.wasm.engine serves both core
// modules and components through the .wasm loader of the loader table; an
// engine not compiled in is refused with a message saying how to get it.
func TestEngineWiring(t *testing.T) {
	core := builtSample(t, "wasm/conformance.wasm")
	comp := builtSample(t, "components/hello.wasm")
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct{ engine, untrusted string }{
		{"", ""}, {wasm.EngineWazero, ""}, {wasm.EngineWasmtime, ""}, {wasm.EngineWasmtime, wasm.UntrustedComponentsEngine}, {"v8", ""},
	} {
		engine := tc.engine
		t.Run(fmt.Sprintf("engine=%q,untrusted_components=%q", engine, tc.untrusted), func(t *testing.T) {
			cfg := config.Default()
			cfg.Data = t.TempDir()
			if tc.untrusted != "" {
				cfg.Runtimes["wasm"] = withKey(cfg.Runtimes["wasm"], "untrusted_components", tc.untrusted)
			}
			if engine != "" {
				err := setWasmEngine(cfg, engine)
				compiledIn := slices.Contains(wasm.Engines(), engine)
				if !compiledIn {
					if err == nil {
						t.Fatalf("setWasmEngine(%q) accepted an engine not compiled in", engine)
					}
					if engine == wasm.EngineWasmtime && !strings.Contains(err.Error(), "-tags wasmtime") {
						t.Fatalf("error %q does not say how to get wasmtime", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			loaders, err := loaderTable(cfg, log)
			if err != nil {
				t.Fatal(err)
			}
			var dot abi.Loader
			for _, l := range loaders {
				if slices.Contains(l.Extensions(), ".wasm") {
					dot = l
				}
			}
			if dot == nil {
				t.Fatal("no .wasm loader in the loader table")
			}
			want := engine
			if want == "" {
				want = wasm.EngineWazero
			}
			for _, path := range []string{core, comp} {
				for _, trust := range []abi.TrustLevel{abi.Untrusted, abi.Verified} {
					p, err := dot.Load(context.Background(), abi.Source{Path: path, Trust: trust})
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					got := fmt.Sprintf("%T", p)
					isWasmtime := strings.Contains(got, "wt") || strings.Contains(got, "wasmtime")
					// A component from an unsigned file runs on wazero
					// unless untrusted_components says engine: wasmtime
					// lifts its results unbounded.
					wantWasmtime := want == wasm.EngineWasmtime &&
						(path == core || trust != abi.Untrusted || tc.untrusted == wasm.UntrustedComponentsEngine)
					if isWasmtime != wantWasmtime {
						t.Errorf("%s (trust %s) on engine %q loaded as %s", filepath.Base(path), trust, want, got)
					}
					_ = p.Close()
				}
			}
			for _, l := range loaders {
				if c, ok := l.(interface{ Close() error }); ok {
					_ = c.Close()
				}
			}
		})
	}
}

// runtimes.wasm.untrusted_components takes wazero or engine; another value
// stops the host with the key named.
func TestUntrustedComponentsConfig(t *testing.T) {
	for _, v := range []string{"wazero", "engine", "wasmtime"} {
		cfg := config.Default()
		cfg.Data = t.TempDir()
		cfg.Runtimes["wasm"] = withKey(cfg.Runtimes["wasm"], "untrusted_components", v)
		_, err := loaderTable(cfg, slog.New(slog.DiscardHandler))
		if v == "wasmtime" {
			if err == nil || !strings.Contains(err.Error(), "runtimes.wasm.untrusted_components") || !strings.Contains(err.Error(), `"wasmtime"`) {
				t.Errorf("%s: error %v, want one naming runtimes.wasm.untrusted_components and the value", v, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}

// runtimes.wasm.memory_limit_pages bounds components as it bounds core
// modules: a limit below what a component's memory starts at refuses it.
func TestComponentMemoryLimitFromConfig(t *testing.T) {
	comp := builtSample(t, "components/hello.wasm")
	for _, engine := range wasm.Engines() {
		for _, pages := range []string{"1", ""} {
			cfg := config.Default()
			cfg.Data = t.TempDir()
			if pages != "" {
				n := withKey(cfg.Runtimes["wasm"], "memory_limit_pages", pages)
				n.Content[len(n.Content)-1].Tag = "!!int"
				cfg.Runtimes["wasm"] = n
			}
			if err := setWasmEngine(cfg, engine); err != nil {
				t.Fatal(err)
			}
			l, err := componentLoader(cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			p, err := l.Load(context.Background(), abi.Source{Path: comp, Trust: abi.Verified})
			if pages == "" {
				if err != nil {
					t.Fatalf("%s, default limit: %v", engine, err)
				}
				_ = p.Close()
				continue
			}
			if err == nil {
				_ = p.Close()
				t.Fatalf("%s: a component loaded under a memory limit of one page", engine)
			}
			t.Logf("%s: %v", engine, err)
		}
	}
}
