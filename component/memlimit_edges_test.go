package component

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestMemoryAboveLimitNamesKey: a component whose core module's memory
// starts above the memory limit was refused in wazero's words ("section
// memory: min 22 pages (1 Mi) over limit of 2 pages (128 Ki)"), with no
// word of which setting limits it; core modules named the keys that raise
// it, components now do too (both engines; the wasmtime one in
// component/wasmtime).
func TestMemoryAboveLimitNamesKey(t *testing.T) {
	cfg := wasm.Config{MemoryLimitPages: 4096, Providers: map[string]wasm.ProviderConfig{"jstext": {MemoryLimitPages: 2}}}
	l := NewLoader(Options{CacheDir: testCacheDir(), MemoryLimitPages: cfg.MemoryLimitPages, ProviderLimits: cfg.LimitsFor})
	_, err := l.Load(context.Background(), abi.Source{Path: filepath.Join(testutil.RepoRoot(t), "build", "components", "jstext.wasm")})
	if err == nil {
		t.Fatal("jstext loaded under a limit of 2 pages")
	}
	for _, want := range []string{"jstext.wasm", "core module of instance", "limit of 2 pages",
		"runtimes.wasm.providers.jstext.memory_limit_pages", "runtimes.wasm.memory_limit_pages"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\ndoes not say %q", err, want)
		}
	}
}
