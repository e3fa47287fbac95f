package component

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestProviderLimitsFromConfig: runtimes.wasm.providers.<id or stem>.
// pool_size and memory_limit_pages did nothing for a component (only the
// loader-wide values reached the component loader), and a call that
// waited for its full pool named runtimes.wasm.pool_size. The loader now
// takes them per provider, as the core-module loader does.
func TestProviderLimitsFromConfig(t *testing.T) {
	cfg := wasm.Config{PoolSize: 4, MemoryLimitPages: 4096, Providers: map[string]wasm.ProviderConfig{
		"hello": {PoolSize: 1, MemoryLimitPages: 64},
	}}
	l := NewLoader(Options{CacheDir: testCacheDir(), PoolSize: cfg.PoolSize, MemoryLimitPages: cfg.MemoryLimitPages, ProviderLimits: cfg.LimitsFor})
	dir := filepath.Join(testutil.RepoRoot(t), "build", "components")
	for _, tc := range []struct {
		name  string
		pool  int
		pages uint64
		key   string
	}{
		{"hello", 1, 64, "runtimes.wasm.providers.hello.pool_size"},
		{"conformance", 4, 4096, "runtimes.wasm.pool_size"},
	} {
		ap, err := l.Load(context.Background(), abi.Source{Path: filepath.Join(dir, tc.name+".wasm")})
		if err != nil {
			t.Fatal(err)
		}
		p := ap.(*Provider)
		if p.bound.Size() != tc.pool || cap(p.pool) != tc.pool || p.poolKey != tc.key || p.retireAt != tc.pages*65536/4*3 {
			t.Errorf("%s: pool %d (idle %d), key %q, retire at %d bytes; want pool %d, key %q, a limit of %d pages",
				tc.name, p.bound.Size(), cap(p.pool), p.poolKey, p.retireAt, tc.pool, tc.key, tc.pages)
		}
		p.Close()
	}
}
