package wasm

import (
	"path/filepath"
	"testing"
)

// TestHomeInPathKeys: runtimes.wasm.cache_dir: ~/wasm-cache made a
// folder named "~" in the working directory, where README says a leading
// "~/" in the config's paths is the home folder (as for data, plugins and
// server.socket). It is the home folder.
func TestHomeInPathKeys(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	c, err := Config{CacheDir: "~/wasm-cache"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "wasm-cache"); c.CacheDir != want {
		t.Errorf("cache_dir ~/wasm-cache is %q; want %q", c.CacheDir, want)
	}
	if c, _ := (Config{CacheDir: "rel/cache"}).withDefaults(); c.CacheDir != "rel/cache" {
		t.Errorf("cache_dir rel/cache became %q", c.CacheDir)
	}
}
