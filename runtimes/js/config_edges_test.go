package js

import (
	"strings"
	"testing"
	"time"
)

// TestConfigLimits: a negative or huge pool_size, or a negative
// timeout, is a config error naming the key. A negative pool_size became
// the default 16 silently, and pool_size: 1000000000 made a channel of a
// billion runtimes (8 GB) at the first load.
func TestConfigLimits(t *testing.T) {
	for _, tc := range []struct {
		c   Config
		key string
	}{
		{Config{PoolSize: -1}, "runtimes.js.pool_size"},
		{Config{PoolSize: 1 << 30}, "runtimes.js.pool_size"},
		{Config{MaxCallStackSize: -1}, "runtimes.js.max_call_stack"},
		{Config{DefaultTimeout: -time.Second}, "runtimes.js.default_timeout"},
		{Config{LoadTimeout: -time.Second}, "runtimes.js.load_timeout"},
		{Config{ProviderBudgets: map[string]int{"org.x.y": -5}}, `runtimes.js.provider_budgets_mib["org.x.y"]`},
		// Sizes whose bytes overflow: 2^44 MiB was 0 bytes, the default
		// (p192's leftover).
		{Config{ProcessMemoryMiB: 1 << 44}, "runtimes.js.process_memory_mib"},
		{Config{MemoryBudgetMiB: 1<<30 + 1}, "runtimes.js.memory_budget_mib"},
		{Config{ProviderBudgets: map[string]int{"org.x.y": 1 << 44}}, `runtimes.js.provider_budgets_mib["org.x.y"]`},
	} {
		if err := tc.c.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.key+":") {
			t.Errorf("%+v: %v, want an error naming %s", tc.c, err, tc.key)
		}
	}
	if err := (Config{MemoryBudgetMiB: MaxMiB, ProcessMemoryMiB: MaxMiB}).Validate(); err != nil {
		t.Fatalf("sizes of %d MiB: %v", MaxMiB, err)
	}
	if err := (Config{PoolSize: MaxPoolSize}).Validate(); err != nil {
		t.Fatalf("pool_size %d: %v", MaxPoolSize, err)
	}
}
