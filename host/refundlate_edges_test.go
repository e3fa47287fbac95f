package host

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A call let through by the caller's limiter and then refused by the
// tool's gives its caller token back. When the refusal comes long after
// the caller's token was taken (a goroutine not scheduled for seconds
// between the two checks), the caller's bucket has filled again by itself
// meanwhile and other calls have drawn on it: a refund then gave back a
// token one of those calls took, and the caller got two calls in one
// instant at a burst of 1.
func TestRateRefundAfterLongPauseLendsNothing(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerCaller = &config.Rate{PerSecond: 1, Burst: 1}
		c.RateLimits.PerTool = map[string]config.Rate{"scarce": {PerSecond: 1, Burst: 1}}
		c.Agents["carol"] = config.Agent{Grants: []string{"CallTool(scarce)"}}
	})
	p := native.New(abi.ProviderInfo{ID: "org.test.refund"})
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	p.MustRegister(abi.ToolDef{Name: "scarce"}, ok)
	p.MustRegister(abi.ToolDef{Name: "plenty"}, ok)
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	defer func(f func() time.Time) { rateNow = f }(rateNow)
	base := time.Now()
	at := base
	rateNow = func() time.Time { return at }
	// Empty the tool's bucket with carol, whose bucket is her own.
	if _, err := te.call("carol", "scarce", nil); err != nil {
		t.Fatalf("carol's call: %v", err)
	}
	// alice's call of scarce: her token taken at base, the tool's bucket
	// found empty. Before the refusal is handled, 10 s pass and a call of
	// plenty draws on alice's bucket, full again, at base+10s.
	defer func() { rateRefusePause = nil }()
	rateRefusePause = func() {
		rateRefusePause = nil
		at = base.Add(10 * time.Second)
		if _, err := te.call("alice", "plenty", nil); err != nil {
			t.Errorf("alice's call of plenty 10 s later: %v", err)
		}
	}
	if _, err := te.call("alice", "scarce", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("alice's call of scarce: %v; want RateLimited (the tool's bucket)", err)
	}
	if _, err := te.call("alice", "plenty", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("a second call of alice's in the instant of the first, at 1/s with a burst of 1: %v; want RateLimited", err)
	}
}
