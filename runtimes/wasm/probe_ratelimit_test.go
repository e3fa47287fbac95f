package wasm

import (
	"strings"
	"testing"
)

// TestProbePoolSizeBounded: a pool_size past what a host can hold is a
// config error naming the key, not an allocation of 64 bytes per slot at
// the first load (pool_size: 1000000000 asked for 64 GB and killed the
// host out of memory).
func TestProbePoolSizeBounded(t *testing.T) {
	for _, tc := range []struct {
		c   Config
		key string
	}{
		{Config{PoolSize: 1 << 30}, "runtimes.wasm.pool_size"},
		{Config{PoolSize: MaxPoolSize + 1}, "runtimes.wasm.pool_size"},
		{Config{Providers: map[string]ProviderConfig{"big": {PoolSize: 1 << 40}}}, "runtimes.wasm.providers.big.pool_size"},
	} {
		if _, err := tc.c.withDefaults(); err == nil || !strings.HasPrefix(err.Error(), tc.key+":") || !strings.Contains(err.Error(), "1024") {
			t.Errorf("%+v: %v, want an error naming %s and the bound", tc.c, err, tc.key)
		}
	}
	if c, err := (Config{PoolSize: MaxPoolSize, Providers: map[string]ProviderConfig{"p": {PoolSize: MaxPoolSize}}}).withDefaults(); err != nil || c.PoolSize != MaxPoolSize {
		t.Fatalf("pool_size %d: %v", MaxPoolSize, err)
	}
}
