package host

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestRateJudgedAtTheCheck: the rate limiters were asked at the call's
// start time, read before the lookup and the capability checks. A call
// that reached its check late (a goroutine not scheduled for a while on a
// loaded machine, a GC pause) was judged at a time older than the calls
// that had passed the limiter meanwhile, which the limiter reads as a
// bucket drawn on in the future: refused "retry in …" with the bucket
// full (discovery's reload stress test was refused by a global limit of
// 1e9/s with a burst of 1e9). The check reads the clock itself.
func TestRateJudgedAtTheCheck(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.Global = &config.Rate{PerSecond: 1, Burst: 1}
	})
	p := native.New(abi.ProviderInfo{ID: "org.test.stale"})
	p.MustRegister(abi.ToolDef{Name: "stale"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	defer func(f func() time.Time) { rateNow = f }(rateNow)
	// A call checked 5 s after it started: the limiter holds its token
	// until 6 s from now. The next call, checked 7 s from now, finds the
	// bucket full again; judged at its start it found it drawn on.
	rateNow = func() time.Time { return time.Now().Add(5 * time.Second) }
	if _, err := te.call("alice", "stale", nil); err != nil {
		t.Fatalf("first call: %v", err)
	}
	rateNow = func() time.Time { return time.Now().Add(7 * time.Second) }
	if _, err := te.call("alice", "stale", nil); err != nil {
		t.Fatalf("a call checked two seconds after the first, at 1/s: %v", err)
	}
	if _, err := te.call("alice", "stale", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("a second call in the same instant: %v; want RateLimited", err)
	}
}
