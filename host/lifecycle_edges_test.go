package host

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// rate_limits.per_tool takes "a tool name or pattern" (config/example.yaml;
// config validation accepts * and ?), but the host looked limits up by exact
// name only: a pattern key limited nothing, silently. Each tool a pattern
// matches gets a bucket of its own; an exact name's entry takes precedence.
func TestPerToolPatternLimits(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{
			"who*":   {PerSecond: 0.001, Burst: 1},
			"ech?":   {PerSecond: 0.001, Burst: 2},
			"echo-x": {PerSecond: 1000, Burst: 1000}, // exact, unrelated
		}
	})
	if _, err := te.call("alice", "whoami", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "whoami", map[string]any{}); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("second call of whoami under per_tool \"who*\" (burst 1): %v; want RateLimited", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := te.call("alice", "echo", map[string]any{"x": 1}); err != nil && abi.CodeOf(err) == abi.RateLimited {
			t.Fatalf("echo call %d refused within its burst: %v", i, err)
		}
	}
	if _, err := te.call("alice", "echo", map[string]any{"x": 1}); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("third call of echo under \"ech?\" (burst 2): %v; want RateLimited", err)
	}
}
