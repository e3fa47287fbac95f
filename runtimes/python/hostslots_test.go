package python_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/hostop"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/runtimes/python"
)

const gatherTool = `import asyncio
from aios_sdk import tool, provider, Capability

provider(id="org.test.gather", capabilities=[Capability.CallTool("slow-count")])

@tool(name="gather", parameters={"type": "object"})
async def gather(params, ctx):
    rs = await asyncio.gather(*[ctx.call_tool("slow-count", {}) for _ in range(params["n"])])
    return {"n": len(rs)}
`

// slowCounter is a native tool that records how many of its calls run at
// once.
type slowCounter struct {
	mu        sync.Mutex
	now, peak int
}

func (s *slowCounter) provider() abi.Provider {
	p := native.New(abi.ProviderInfo{ID: "org.test.slow-count"})
	p.MustRegister(abi.ToolDef{Name: "slow-count", Version: "1.0.0"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
		s.mu.Lock()
		s.now++
		s.peak = max(s.peak, s.now)
		s.mu.Unlock()
		time.Sleep(3 * time.Millisecond)
		s.mu.Lock()
		s.now--
		s.mu.Unlock()
		return true, nil
	})
	return p
}

// TestHostCallsInFlightBounded: a tool that gathers 400 ctx.call_tool gets
// every answer, while at most hostop.MaxInFlight of them run at once (each
// used to start at once, on a goroutine of its own).
func TestHostCallsInFlightBounded(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	sc := &slowCounter{}
	if err := h.AddProvider(context.Background(), sc.provider(), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	loadTool(t, h, "gather.py", gatherTool)
	v, err := call(h, "gather", map[string]any{"n": 400}, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := v.(map[string]any)["n"].(int64); n != 400 {
		t.Fatalf("gather: %#v", v)
	}
	if sc.peak > hostop.MaxInFlight || sc.peak < 2 {
		t.Fatalf("%d host calls ran at once, want 2..%d", sc.peak, hostop.MaxInFlight)
	}
}
