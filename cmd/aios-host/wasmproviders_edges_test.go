package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWasmProviderOverrideNamesLine: a bad value in a per-provider
// override of runtimes.wasm (runtimes.wasm.providers.image-resize:
// {memory_limit_pages: 80000}, as docs/abi.md §6 shows the section) stopped
// the host with "runtimes.wasm.providers.image-resize.memory_limit_pages:
// 80000 is above 65536", naming neither the file nor the line (a provider
// key with a '-' was not taken for a key path), and one under a dotted
// provider id (org.example.x) was placed on the line of providers:. Like
// every bad value (README "Configuration"), each is said with the file and
// the line of its provider's key.
func TestWasmProviderOverrideNamesLine(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"runtimes:\n  wasm:\n    providers:\n      image-resize: {memory_limit_pages: 80000}\n",
			":4: runtimes.wasm.providers.image-resize.memory_limit_pages: 80000 is above 65536"},
		{"runtimes:\n  wasm:\n    providers:\n      org.example.x: {pool_size: 2000}\n",
			`:4: runtimes.wasm.providers["org.example.x"].pool_size: 2000 is more than 1024`},
		{"runtimes:\n  wasm:\n    providers:\n      a: {}\n      c-echo: {pool_size: -1}\n",
			":5: runtimes.wasm.providers.c-echo.pool_size: -1 is negative"},
	} {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		err := checkConfigFile(path)
		if err == nil {
			t.Fatalf("%q loaded", tc.body)
		}
		if !strings.HasPrefix(err.Error(), path+tc.want) {
			t.Errorf("%q: got %q, want it to start with %q", tc.body, err, path+tc.want)
		}
	}
}
