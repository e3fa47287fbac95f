//go:build wasmtime

package wasmtime

import (
	"testing"

	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestProviderLimitsFromConfig: runtimes.wasm.providers.<id or stem>.
// pool_size and memory_limit_pages did nothing for a component on
// wasmtime either; they apply per provider now, as on wazero.
func TestProviderLimitsFromConfig(t *testing.T) {
	cfg := wasm.Config{PoolSize: 4, MemoryLimitPages: 4096, Providers: map[string]wasm.ProviderConfig{
		"hello": {PoolSize: 1, MemoryLimitPages: 64},
	}}
	l := newLoader(t, Options{PoolSize: cfg.PoolSize, MemoryLimitPages: cfg.MemoryLimitPages, ProviderLimits: cfg.LimitsFor})
	for _, tc := range []struct {
		name  string
		pool  int
		pages uint32
		key   string
	}{
		{"hello", 1, 64, "runtimes.wasm.providers.hello.pool_size"},
		{"conformance", 4, 4096, "runtimes.wasm.pool_size"},
	} {
		p := loadWT(t, l, tc.name)
		if p.bound.Size() != tc.pool || cap(p.pool) != tc.pool || p.poolKey != tc.key || p.memoryPages != tc.pages {
			t.Errorf("%s: pool %d (idle %d), key %q, %d pages; want pool %d, key %q, %d pages",
				tc.name, p.bound.Size(), cap(p.pool), p.poolKey, p.memoryPages, tc.pool, tc.key, tc.pages)
		}
	}
}
