package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestPluginExtensionsMatchLoaders: verify recognises a provider folder's
// artifact by pluginExtensions rather than by building every runtime; the
// list must name exactly the extensions the loaders take, or verify and
// discovery disagree about which file a card describes.
func TestPluginExtensionsMatchLoaders(t *testing.T) {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	loaders, err := loaderTable(cfg, slog.New(slog.DiscardHandler))
	defer func() {
		for _, l := range loaders {
			closeLoader(l)
		}
	}()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range loaders {
		got = append(got, l.Extensions()...)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(pluginExtensions))
	if !slices.Equal(got, want) {
		t.Fatalf("loaders take %v, pluginExtensions lists %v", got, want)
	}
}

// TestVerifyLeavesComponentCacheAlone: verify of a card used to build
// every runtime to learn their extensions, and building the component
// runtime prunes its compile cache: checking a card removed compiled code
// of the running host's data folder.
func TestVerifyLeavesComponentCacheAlone(t *testing.T) {
	e := newEnv(t)
	signed, jwks := signedDemoCard(t, e)
	folder := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "adapter.json"), []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Data = e.data
	stale := filepath.Join(componentCacheDir(cfg), "wasmtime-v39-0123abcd.cwasm")
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, make([]byte, 64), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run("", "verify", filepath.Join(folder, "adapter.json"), "--jwks", jwks); code != 0 {
		t.Fatalf("verify: exit %d, %s %s", code, out, errs)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("verify touched the component compile cache: %v", err)
	}
}
