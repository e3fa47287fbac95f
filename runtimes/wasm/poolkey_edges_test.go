package wasm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestPoolTimeoutNamesProviderKey: a provider whose pool size comes
// from runtimes.wasm.providers.<id or stem>.pool_size had a call that
// waited for its full pool until the deadline told "(runtimes.wasm.pool_size)",
// a key that does not size that pool (raising it changes nothing). The
// Timeout names the key that set the bound; a provider without an entry
// still names runtimes.wasm.pool_size.
func TestPoolTimeoutNamesProviderKey(t *testing.T) {
	b, err := os.ReadFile(buildWAT(t, basicWAT("org.test.poolkey", 2)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "poolkey.wasm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  abi.Source
		cfg  Config
		key  string
		size string
	}{
		{"stem", abi.Source{Path: path}, Config{PoolSize: 3, Providers: map[string]ProviderConfig{"poolkey": {PoolSize: 1}}},
			"runtimes.wasm.providers.poolkey.pool_size", "all 1 instances"},
		{"id", abi.Source{Path: path, ProviderID: "org.test.poolkey"}, Config{PoolSize: 3, Providers: map[string]ProviderConfig{"org.test.poolkey": {PoolSize: 1}}},
			`runtimes.wasm.providers["org.test.poolkey"].pool_size`, "all 1 instances"},
		{"loader-wide", abi.Source{Path: path}, Config{PoolSize: 1, Providers: map[string]ProviderConfig{"other": {PoolSize: 5}}},
			"(runtimes.wasm.pool_size)", "all 1 instances"},
	} {
		c.cfg.DeadlineGranularity = time.Millisecond
		for engine, l := range probeLoaders(t, c.cfg, nil) {
			t.Run(c.name+"/"+engine, func(t *testing.T) {
				p, err := l.Load(context.Background(), c.src)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				env := newFakeEnv(p, 2)
				// The loop holds the only instance until its deadline; the
				// second call waits for it and reaches its own deadline first.
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _ = call(p, env, "loop", nil, time.Second)
				}()
				var werr error
				for start := time.Now(); time.Since(start) < 30*time.Second; {
					time.Sleep(20 * time.Millisecond)
					if _, werr = call(p, env, "const", map[string]any{}, 150*time.Millisecond); werr != nil && strings.Contains(werr.Error(), "were busy") {
						break
					}
				}
				wg.Wait()
				if abi.CodeOf(werr) != abi.Timeout || !strings.Contains(werr.Error(), c.key) || !strings.Contains(werr.Error(), c.size) {
					t.Fatalf("the call waiting for the full pool got %v; want Timeout naming %q and %q", werr, c.size, c.key)
				}
			})
		}
	}
}
