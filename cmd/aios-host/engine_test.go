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
	for _, engine := range []string{"", wasm.EngineWazero, wasm.EngineWasmtime, "v8"} {
		t.Run(fmt.Sprintf("engine=%q", engine), func(t *testing.T) {
			cfg := config.Default()
			cfg.Data = t.TempDir()
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
				p, err := dot.Load(context.Background(), abi.Source{Path: path})
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				got := fmt.Sprintf("%T", p)
				isWasmtime := strings.Contains(got, "wt") || strings.Contains(got, "wasmtime")
				if isWasmtime != (want == wasm.EngineWasmtime) {
					t.Errorf("%s on engine %q loaded as %s", filepath.Base(path), want, got)
				}
				_ = p.Close()
			}
			for _, l := range loaders {
				if c, ok := l.(interface{ Close() error }); ok {
					_ = c.Close()
				}
			}
		})
	}
}
