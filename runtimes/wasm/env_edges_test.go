package wasm

import (
	"strings"
	"testing"
	"time"
)

// TestConfigRefusesNegatives: a negative duration or count under
// runtimes.wasm is refused, naming the key (the CLI adds its line), as
// runtimes.js's are. Before, it silently became the default
// (compile_timeout: -1s compiled with 30 s).
func TestConfigRefusesNegatives(t *testing.T) {
	cases := map[string]Config{
		"runtimes.wasm.pool_size":               {PoolSize: -1},
		"runtimes.wasm.min_idle":                {MinIdle: -1},
		"runtimes.wasm.idle_timeout":            {IdleTimeout: -time.Second},
		"runtimes.wasm.deadline_granularity":    {DeadlineGranularity: -time.Millisecond},
		"runtimes.wasm.default_deadline":        {DefaultDeadline: -time.Second},
		"runtimes.wasm.load_timeout":            {LoadTimeout: -time.Second},
		"runtimes.wasm.compile_timeout":         {CompileTimeout: -time.Second},
		"runtimes.wasm.stdout_bytes_per_second": {StdoutBytesPerSecond: -1},
		"runtimes.wasm.max_message_bytes":       {MaxMessageBytes: -1},
		"runtimes.wasm.providers.p.pool_size":   {Providers: map[string]ProviderConfig{"p": {PoolSize: -2}}},
	}
	for key, c := range cases {
		if _, err := c.withDefaults(); err == nil || !strings.HasPrefix(err.Error(), key+":") || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%s: withDefaults = %v; want an error beginning %q and saying it is negative", key, err, key+":")
		}
	}
	if c, err := (Config{}).withDefaults(); err != nil || c.CompileTimeout <= 0 || c.PoolSize != 4 {
		t.Errorf("zero config: %+v, %v; want the defaults", c, err)
	}
}
