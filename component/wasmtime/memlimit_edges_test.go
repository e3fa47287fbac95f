//go:build wasmtime

package wasmtime

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestMemoryAboveLimitNamesKey: as on wazero (component's test of the
// name), a component whose memory starts above its limit is refused
// naming the keys that raise it, not in wasmtime's words alone.
func TestMemoryAboveLimitNamesKey(t *testing.T) {
	cfg := wasm.Config{MemoryLimitPages: 4096, Providers: map[string]wasm.ProviderConfig{"jstext": {MemoryLimitPages: 2}}}
	l := newLoader(t, Options{MemoryLimitPages: cfg.MemoryLimitPages, ProviderLimits: cfg.LimitsFor})
	_, err := l.Load(context.Background(), abi.Source{Path: sample(t, "jstext")})
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
