package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestLeakComponentCachePruned: the component runtime's compile cache
// (data/cache/component) is pruned when the host starts, as the core
// modules' is (data/cache/wasm): every version of a component compiled
// while it is developed (hot reload) leaves its code there, and before the
// fix nothing ever removed any of it. An entry no loader of this build
// reads (a wasmtime entry from before entries were sealed) goes.
func TestLeakComponentCachePruned(t *testing.T) {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	dir := componentCacheDir(cfg)
	stale := filepath.Join(dir, "wasmtime-v39-0123abcd.cwasm")
	kept := filepath.Join(dir, "wasmtime-v39-sealed-0123abcd.cwasm")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{stale, kept} {
		if err := os.WriteFile(f, make([]byte, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := loaderTable(cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale component cache entry %s is still there after the loaders started (err %v): the component cache is never pruned", stale, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("current entry removed: %v", err)
	}
}
